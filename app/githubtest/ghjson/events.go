package ghjson

import "github.com/verdict-bot/verdict/app/githubtest/fixture"

// Event is what every webhook delivery about repository r carries: the
// action, the repository, the sender and the App's installation.
func (s Site) Event(r *fixture.Repo, action, sender, senderType string) map[string]any {
	id := s.fx.App.InstallationID
	return map[string]any{"action": action, "repository": s.Repo(r.FullName, r.DefaultBranch, r.Private),
		"sender": s.User(sender, senderType), "installation": map[string]any{"id": id, "node_id": NodeID("I", id)}}
}
