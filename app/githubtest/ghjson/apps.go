package ghjson

import "fmt"

// App is the GitHub App the fixture declares, as GET /app and check runs
// show it.
func (s Site) App() map[string]any {
	a := s.fx.App
	return map[string]any{"id": a.ID, "slug": a.Slug, "node_id": NodeID("A", a.ID), "name": a.Slug, "description": nil,
		"owner": s.User("verdict-bot", "Organization"), "external_url": "https://verdict.invalid/",
		"html_url": "https://github.com/apps/" + a.Slug, "created_at": s.since(), "updated_at": s.since(),
		"permissions": appPermissions, "events": []string{"check_run", "check_suite", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment"}}
}

var appPermissions = map[string]string{"contents": "read", "pull_requests": "write", "issues": "write", "actions": "read",
	"checks": "write", "statuses": "write", "metadata": "read", "members": "read"}

// Installation is the App's one installation.
func (s Site) Installation() map[string]any {
	a := s.fx.App
	return map[string]any{"id": a.InstallationID, "app_id": a.ID, "app_slug": a.Slug, "target_id": 1, "target_type": "Organization",
		"account": s.User("SemiAnalysisAI", "Organization"), "single_file_name": nil, "repository_selection": "selected",
		"access_tokens_url": fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL, a.InstallationID),
		"html_url":          fmt.Sprintf("https://github.com/organizations/SemiAnalysisAI/settings/installations/%d", a.InstallationID),
		"repositories_url":  s.URL + "/installation/repositories", "events": []string{"issue_comment", "pull_request"},
		"permissions": appPermissions, "created_at": s.since(), "updated_at": s.since(), "suspended_by": nil, "suspended_at": nil}
}
