package ghjson

import (
	"fmt"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// MinimalRepo is the minimal-repository object; Repo and FullRepo add to
// it.
func (s Site) MinimalRepo(full string, private bool) map[string]any {
	owner, name, _ := strings.Cut(full, "/")
	api := s.URL + "/repos/" + full
	out := map[string]any{
		"id": ID(full), "node_id": NodeID("R", ID(full)), "name": name, "full_name": full, "private": private,
		"owner": s.User(owner, "Organization"), "html_url": "https://github.com/" + full, "description": nil, "fork": false,
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

// Repo is the repository object (as in a pull request's head and base).
func (s Site) Repo(full, defaultBranch string, private bool) map[string]any {
	out := s.MinimalRepo(full, private)
	for k, v := range map[string]any{
		"clone_url": "https://github.com/" + full + ".git", "git_url": "git://github.com/" + full + ".git",
		"ssh_url": "git@github.com:" + full + ".git", "svn_url": "https://github.com/" + full, "mirror_url": nil,
		"homepage": nil, "language": nil, "default_branch": defaultBranch, "forks": 0, "forks_count": 0,
		"stargazers_count": 0, "watchers": 0, "watchers_count": 0, "size": 0, "open_issues": 0, "open_issues_count": 0,
		"has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false, "has_downloads": true,
		"has_discussions": false, "archived": false, "disabled": false, "license": nil, "visibility": visibility(private), "topics": []string{},
		"pushed_at": ISO(s.fx.Now.Add(-time.Hour)), "created_at": s.since(), "updated_at": ISO(s.fx.Now.Add(-time.Hour)),
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

// FullRepo is GET /repos/{owner}/{repo}: the full-repository object.
func (s Site) FullRepo(r *fixture.Repo) map[string]any {
	out := s.Repo(r.FullName, r.DefaultBranch, r.Private)
	out["network_count"], out["subscribers_count"] = 0, 0
	owner, _, _ := strings.Cut(r.FullName, "/")
	out["organization"] = s.User(owner, "Organization")
	return out
}

// Team is an organization team with its organization.
func (s Site) Team(t *fixture.Team) map[string]any {
	id := ID(t.Org + "/" + t.Slug)
	api := fmt.Sprintf("%s/orgs/%s/teams/%s", s.URL, t.Org, t.Slug)
	org := s.User(t.Org, "Organization")
	for k, v := range map[string]any{"repos_url": s.URL + "/orgs/" + t.Org + "/repos", "hooks_url": s.URL + "/orgs/" + t.Org + "/hooks",
		"issues_url": s.URL + "/orgs/" + t.Org + "/issues", "members_url": s.URL + "/orgs/" + t.Org + "/members{/member}",
		"public_members_url": s.URL + "/orgs/" + t.Org + "/public_members{/member}", "description": nil,
		"has_organization_projects": true, "has_repository_projects": true, "public_repos": 0, "public_gists": 0,
		"followers": 0, "following": 0, "created_at": s.since(), "updated_at": s.since(), "archived_at": nil} {
		org[k] = v
	}
	return map[string]any{"id": id, "node_id": NodeID("T", id), "url": api, "html_url": "https://github.com/orgs/" + t.Org + "/teams/" + t.Slug,
		"name": t.Slug, "slug": t.Slug, "description": nil, "privacy": "closed", "notification_setting": "notifications_enabled",
		"permission": "pull", "members_url": api + "/members{/member}", "repositories_url": api + "/repos", "parent": nil,
		"type": "organization", "members_count": len(t.Members), "repos_count": 1, "created_at": s.since(), "updated_at": s.since(),
		"organization": org}
}
