package ghjson

import (
	"fmt"
	"strings"
)

// User is GitHub's simple-user object: every field it requires.
// typ is "User", "Bot" or "Organization"; "" guesses from the login.
func (s Site) User(login, typ string) map[string]any {
	if typ == "" {
		typ = "User"
		if strings.HasSuffix(login, "[bot]") {
			typ = "Bot"
		}
	}
	id := ID(login)
	api := s.URL + "/users/" + login
	return map[string]any{
		"login": login, "id": id, "node_id": NodeID("U", id), "type": typ, "site_admin": false,
		"avatar_url":  fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", id),
		"gravatar_id": "", "url": api, "html_url": "https://github.com/" + login,
		"followers_url": api + "/followers", "following_url": api + "/following{/other_user}",
		"gists_url": api + "/gists{/gist_id}", "starred_url": api + "/starred{/owner}{/repo}",
		"subscriptions_url": api + "/subscriptions", "organizations_url": api + "/orgs",
		"repos_url": api + "/repos", "events_url": api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
	}
}

// PrivateUser is GET /user for a personal token: the private-user object.
func (s Site) PrivateUser(login string) map[string]any {
	u := s.User(login, "User")
	created := s.fx.Now.AddDate(-3, 0, 0).Format("2006-01-02T15:04:05Z")
	for k, v := range map[string]any{
		"name": login, "company": nil, "blog": "", "location": nil, "email": nil, "hireable": nil, "bio": nil,
		"public_repos": 0, "public_gists": 0, "followers": 0, "following": 0, "created_at": created, "updated_at": created,
		"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0, "disk_usage": 0, "collaborators": 0,
		"two_factor_authentication": true, "user_view_type": "private",
	} {
		u[k] = v
	}
	return u
}
