package githubtest

import (
	"fmt"
	"strings"
	"time"
)

// The builders in json_*.go write GitHub's objects with every field the REST
// description requires (nullable ones as null), so that clients decoding
// them see what GitHub sends. The contract tests hold them to it.

// iso is a timestamp as GitHub writes it, or null for the zero time.
func iso(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// since is a fixed date before the fixture's clock, for "created_at" of
// things a fixture does not date (users, repositories, the App).
func (s *Server) since() string { return iso(s.fx.Now.AddDate(-2, 0, 0)).(string) }

func (s *Server) appJSON() map[string]any {
	a := s.fx.App
	return map[string]any{"id": a.ID, "slug": a.Slug, "node_id": nodeID("A", a.ID), "name": a.Slug, "description": nil,
		"owner": s.userJSON("verdict-bot", "Organization"), "external_url": "https://verdict.invalid/",
		"html_url": "https://github.com/apps/" + a.Slug, "created_at": s.since(), "updated_at": s.since(),
		"permissions": appPermissions, "events": []string{"check_run", "check_suite", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment"}}
}

var appPermissions = map[string]string{"contents": "read", "pull_requests": "write", "issues": "write", "actions": "read",
	"checks": "write", "statuses": "write", "metadata": "read", "members": "read"}

// minimalRepoJSON is the minimal-repository object; repoJSON and
// fullRepoJSON add to it.
func (s *Server) minimalRepoJSON(full string, private bool) map[string]any {
	owner, name, _ := strings.Cut(full, "/")
	api := s.URL + "/repos/" + full
	out := map[string]any{
		"id": userID(full), "node_id": nodeID("R", userID(full)), "name": name, "full_name": full, "private": private,
		"owner": s.userJSON(owner, "Organization"), "html_url": "https://github.com/" + full, "description": nil, "fork": false,
		"url": api,
	}
	for _, f := range []string{"archive_url:/{archive_format}{/ref}", "assignees_url:/assignees{/user}", "blobs_url:/git/blobs{/sha}",
		"branches_url:/branches{/branch}", "collaborators_url:/collaborators{/collaborator}", "comments_url:/comments{/number}",
		"commits_url:/commits{/sha}", "compare_url:/compare/{base}...{head}", "contents_url:/contents/{+path}",
		"contributors_url:/contributors", "deployments_url:/deployments", "downloads_url:/downloads", "events_url:/events",
		"forks_url:/forks", "git_commits_url:/git/commits{/sha}", "git_refs_url:/git/refs{/sha}", "git_tags_url:/git/tags{/sha}",
		"hooks_url:/hooks", "issue_comment_url:/issues/comments{/number}", "issue_events_url:/issues/events{/number}",
		"issues_url:/issues{/number}", "keys_url:/keys{/key_id}", "labels_url:/labels{/name}", "languages_url:/languages",
		"merges_url:/merges", "milestones_url:/milestones{/number}", "notifications_url:/notifications{?since,all,participating}",
		"pulls_url:/pulls{/number}", "releases_url:/releases{/id}", "stargazers_url:/stargazers", "statuses_url:/statuses/{sha}",
		"subscribers_url:/subscribers", "subscription_url:/subscription", "tags_url:/tags", "teams_url:/teams",
		"trees_url:/git/trees{/sha}"} {
		k, v, _ := strings.Cut(f, ":")
		out[k] = api + v
	}
	return out
}

// repoJSON is the repository object (as in a pull request's head and base).
func (s *Server) repoJSON(full, defaultBranch string, private bool) map[string]any {
	out := s.minimalRepoJSON(full, private)
	for k, v := range map[string]any{
		"clone_url": "https://github.com/" + full + ".git", "git_url": "git://github.com/" + full + ".git",
		"ssh_url": "git@github.com:" + full + ".git", "svn_url": "https://github.com/" + full, "mirror_url": nil,
		"homepage": nil, "language": nil, "default_branch": defaultBranch, "forks": 0, "forks_count": 0,
		"stargazers_count": 0, "watchers": 0, "watchers_count": 0, "size": 0, "open_issues": 0, "open_issues_count": 0,
		"has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false, "has_downloads": true,
		"has_discussions": false, "archived": false, "disabled": false, "license": nil, "visibility": visibility(private), "topics": []string{},
		"pushed_at": iso(s.fx.Now.Add(-time.Hour)), "created_at": s.since(), "updated_at": iso(s.fx.Now.Add(-time.Hour)),
	} {
		out[k] = v
	}
	return out
}

func visibility(private bool) string {
	if private {
		return "private"
	}
	return "public"
}

// fullRepoJSON is GET /repos/{owner}/{repo}: the full-repository object.
func (s *Server) fullRepoJSON(rs *repoState) map[string]any {
	out := s.repoJSON(rs.r.FullName, rs.r.DefaultBranch, rs.r.Private)
	out["network_count"], out["subscribers_count"] = 0, 0
	owner, _, _ := strings.Cut(rs.r.FullName, "/")
	out["organization"] = s.userJSON(owner, "Organization")
	return out
}

func (s *Server) installationJSON() map[string]any {
	a := s.fx.App
	return map[string]any{"id": a.InstallationID, "app_id": a.ID, "app_slug": a.Slug, "target_id": 1, "target_type": "Organization",
		"account": s.userJSON("SemiAnalysisAI", "Organization"), "single_file_name": nil, "repository_selection": "selected",
		"access_tokens_url": fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL, a.InstallationID),
		"html_url":          fmt.Sprintf("https://github.com/organizations/SemiAnalysisAI/settings/installations/%d", a.InstallationID),
		"repositories_url":  s.URL + "/installation/repositories", "events": []string{"issue_comment", "pull_request"},
		"permissions": appPermissions, "created_at": s.since(), "updated_at": s.since(), "suspended_by": nil, "suspended_at": nil}
}

func (s *Server) teamJSON(t *Team) map[string]any {
	id := userID(t.Org + "/" + t.Slug)
	api := fmt.Sprintf("%s/orgs/%s/teams/%s", s.URL, t.Org, t.Slug)
	org := s.userJSON(t.Org, "Organization")
	for k, v := range map[string]any{"repos_url": s.URL + "/orgs/" + t.Org + "/repos", "hooks_url": s.URL + "/orgs/" + t.Org + "/hooks",
		"issues_url": s.URL + "/orgs/" + t.Org + "/issues", "members_url": s.URL + "/orgs/" + t.Org + "/members{/member}",
		"public_members_url": s.URL + "/orgs/" + t.Org + "/public_members{/member}", "description": nil,
		"has_organization_projects": true, "has_repository_projects": true, "public_repos": 0, "public_gists": 0,
		"followers": 0, "following": 0, "created_at": s.since(), "updated_at": s.since(), "archived_at": nil} {
		org[k] = v
	}
	return map[string]any{"id": id, "node_id": nodeID("T", id), "url": api, "html_url": "https://github.com/orgs/" + t.Org + "/teams/" + t.Slug,
		"name": t.Slug, "slug": t.Slug, "description": nil, "privacy": "closed", "notification_setting": "notifications_enabled",
		"permission": "pull", "members_url": api + "/members{/member}", "repositories_url": api + "/repos", "parent": nil,
		"type": "organization", "members_count": len(t.Members), "repos_count": 1, "created_at": s.since(), "updated_at": s.since(),
		"organization": org}
}
