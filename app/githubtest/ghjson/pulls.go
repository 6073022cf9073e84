package ghjson

import (
	"fmt"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// gitUser is a commit's author or committer.
func gitUser(login string, date time.Time) map[string]any {
	return map[string]any{"name": login, "email": login + "@users.noreply.github.com", "date": ISO(date)}
}

// Commit is the commit object of the PR commits list and of a branch;
// tree is the SHA of its git tree, verified whether GitHub shows a
// signature it verified.
func (s Site) Commit(r *fixture.Repo, sha, msg string, date time.Time, author, tree string, verified bool) map[string]any {
	if author == "" {
		author = "octocat"
	}
	api := s.URL + "/repos/" + r.FullName
	return map[string]any{"sha": sha, "node_id": NodeID("C", ID(sha)), "url": api + "/commits/" + sha,
		"html_url": "https://github.com/" + r.FullName + "/commit/" + sha, "comments_url": api + "/commits/" + sha + "/comments",
		"commit": map[string]any{"url": api + "/git/commits/" + sha, "message": msg, "comment_count": 0,
			"author": gitUser(author, date), "committer": gitUser(author, date),
			"tree":         map[string]any{"sha": tree, "url": api + "/git/trees/" + tree},
			"verification": verification(msg, date, author, tree, verified)},
		"author": s.User(author, ""), "committer": s.User(author, ""), "parents": []any{}}
}

// verification is a commit's signature verification as GitHub shows it:
// an unsigned commit has no signature or payload; a verified one has the
// signed commit object as payload, and a (placeholder) signature.
func verification(msg string, date time.Time, author, tree string, verified bool) map[string]any {
	if !verified {
		return map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	}
	who := fmt.Sprintf("%s <%s@users.noreply.github.com> %d +0000", author, author, date.Unix())
	payload := fmt.Sprintf("tree %s\nauthor %s\ncommitter %s\n\n%s", tree, who, who, msg)
	sig := "-----BEGIN PGP SIGNATURE-----\n\n" + NodeID("SIG", ID(payload)) + "\n-----END PGP SIGNATURE-----\n"
	return map[string]any{"verified": true, "reason": "valid", "signature": sig, "payload": payload, "verified_at": ISO(date)}
}

// Labels are a pull request's labels.
func (s Site) Labels(r *fixture.Repo, names []string) []map[string]any {
	out := []map[string]any{}
	for _, n := range names {
		id := ID(r.FullName + "#" + n)
		out = append(out, map[string]any{"id": id, "node_id": NodeID("L", id), "name": n, "description": nil, "color": "ededed",
			"default": false, "url": s.URL + "/repos/" + r.FullName + "/labels/" + n})
	}
	return out
}

func link(href string) map[string]any { return map[string]any{"href": href} }

// Pull is the pull-request object; comments is the count of its
// conversation comments.
func (s Site) Pull(r *fixture.Repo, pr *fixture.Pull, comments int) map[string]any {
	add, del := 0, 0
	for _, f := range pr.Files {
		add += f.Additions
		del += f.Deletions
	}
	headRepo := pr.Head.Repo
	if headRepo == "" {
		headRepo = r.FullName
	}
	side := func(ref, commit, full string) map[string]any {
		owner, _, _ := strings.Cut(full, "/")
		return map[string]any{"ref": ref, "sha": r.ResolveSHA(commit), "label": owner + ":" + ref,
			"user": s.User(owner, "Organization"), "repo": s.Repo(full, r.DefaultBranch, r.Private)}
	}
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, r.FullName, pr.Number)
	issue := fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, r.FullName, pr.Number)
	html := fmt.Sprintf("https://github.com/%s/pull/%d", r.FullName, pr.Number)
	statuses := fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, r.FullName, r.ResolveSHA(pr.Head.Commit))
	var closed, mergedAt, mergeSHA any
	if pr.State == "closed" {
		closed = ISO(pr.UpdatedAt)
	}
	if pr.Merged {
		mergedAt, mergeSHA = ISO(pr.MergedAt), fixture.CommitSHA(r.FullName, fmt.Sprintf("merge-%d", pr.Number))
	}
	id := int64(1800000000 + pr.Number)
	return map[string]any{
		"url": api, "id": id, "node_id": NodeID("PR", id), "html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch",
		"issue_url": issue, "commits_url": api + "/commits", "review_comments_url": api + "/comments",
		"review_comment_url": s.URL + "/repos/" + r.FullName + "/pulls/comments{/number}", "comments_url": issue + "/comments",
		"statuses_url": statuses, "number": pr.Number, "state": pr.State, "locked": false, "title": pr.Title, "body": pr.Body,
		"user": s.User(pr.User, pr.UserType), "labels": s.Labels(r, pr.Labels), "milestone": nil, "active_lock_reason": nil,
		"created_at": ISO(pr.CreatedAt), "updated_at": ISO(pr.UpdatedAt), "closed_at": closed, "merged_at": mergedAt,
		"merge_commit_sha": mergeSHA, "assignee": nil, "assignees": []any{}, "requested_reviewers": []any{}, "requested_teams": []any{},
		"head": side(pr.Head.Ref, pr.Head.Commit, headRepo), "base": side(pr.Base.Ref, pr.Base.Commit, r.FullName),
		"_links": map[string]any{"self": link(api), "html": link(html), "issue": link(issue), "comments": link(issue + "/comments"),
			"review_comments": link(api + "/comments"), "review_comment": link(s.URL + "/repos/" + r.FullName + "/pulls/comments{/number}"),
			"commits": link(api + "/commits"), "statuses": link(statuses)},
		"author_association": r.Association(pr.User), "auto_merge": nil, "draft": pr.Draft, "merged": pr.Merged,
		"mergeable": nil, "rebaseable": nil, "mergeable_state": "unknown", "merged_by": nil,
		"comments": comments, "review_comments": len(pr.ReviewComments), "maintainer_can_modify": false,
		"commits": len(pr.Commits), "additions": add, "deletions": del, "changed_files": len(pr.Files),
	}
}

// Issue is the issue object of a pull request (PlainIssue is an issue's).
func (s Site) Issue(r *fixture.Repo, pr *fixture.Pull, comments int) map[string]any {
	pj := s.Pull(r, pr, comments)
	api := pj["issue_url"].(string)
	id := int64(1700000000 + pr.Number)
	return map[string]any{"id": id, "node_id": NodeID("I", id), "url": api, "repository_url": s.URL + "/repos/" + r.FullName,
		"labels_url": api + "/labels{/name}", "comments_url": api + "/comments", "events_url": api + "/events",
		"html_url": pj["html_url"], "number": pr.Number, "state": pr.State, "title": pr.Title, "body": pr.Body, "user": pj["user"],
		"labels": pj["labels"], "assignee": nil, "assignees": []any{}, "milestone": nil, "locked": false, "active_lock_reason": nil,
		"comments": pj["comments"], "closed_at": pj["closed_at"], "created_at": pj["created_at"], "updated_at": pj["updated_at"],
		"author_association": pj["author_association"], "draft": pr.Draft, "state_reason": nil,
		"pull_request": map[string]any{"url": pj["url"], "html_url": pj["html_url"], "diff_url": pj["diff_url"],
			"patch_url": pj["patch_url"], "merged_at": pj["merged_at"]}}
}

// File is one changed file of a pull request, with the SHA of its blob at
// the head (null when the PR removes it).
func (s Site) File(r *fixture.Repo, pr *fixture.Pull, f *fixture.File) map[string]any {
	head := r.ResolveSHA(pr.Head.Commit)
	var sha any
	files, _, _ := s.fx.Files(r, head)
	if data, ok := files[f.Filename]; ok && f.Status != "removed" {
		sha = fixture.BlobSHA(data)
	}
	out := map[string]any{"sha": sha, "filename": f.Filename, "status": f.Status, "additions": f.Additions, "deletions": f.Deletions,
		"changes":      f.Additions + f.Deletions,
		"blob_url":     fmt.Sprintf("https://github.com/%s/blob/%s/%s", r.FullName, head, f.Filename),
		"raw_url":      fmt.Sprintf("https://github.com/%s/raw/%s/%s", r.FullName, head, f.Filename),
		"contents_url": fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.URL, r.FullName, f.Filename, head)}
	if f.PreviousFilename != "" {
		out["previous_filename"] = f.PreviousFilename
	}
	if !f.NoPatch && f.Patch != "" {
		out["patch"] = f.Patch
	}
	return out
}

// Review is a pull request review.
func (s Site) Review(r *fixture.Repo, pr *fixture.Pull, rv *fixture.Review) map[string]any {
	html := fmt.Sprintf("https://github.com/%s/pull/%d#pullrequestreview-%d", r.FullName, pr.Number, rv.ID)
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, r.FullName, pr.Number)
	return map[string]any{"id": rv.ID, "node_id": NodeID("PRR", rv.ID), "user": s.User(rv.User, ""), "body": rv.Body,
		"state": rv.State, "submitted_at": ISO(rv.SubmittedAt), "commit_id": r.ResolveSHA(rv.Commit), "html_url": html,
		"pull_request_url": api, "author_association": rv.Association,
		"_links": map[string]any{"html": link(html), "pull_request": link(api)}}
}

// ReviewComment is an inline review comment.
func (s Site) ReviewComment(r *fixture.Repo, pull *fixture.Pull, c *fixture.ReviewComment) map[string]any {
	html := fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", r.FullName, pull.Number, c.ID)
	api := fmt.Sprintf("%s/repos/%s/pulls/comments/%d", s.URL, r.FullName, c.ID)
	prURL := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, r.FullName, pull.Number)
	var review any
	if c.ReviewID != 0 {
		review = c.ReviewID
	}
	sha := r.ResolveSHA(c.Commit)
	return map[string]any{"url": api, "id": c.ID, "node_id": NodeID("PRRC", c.ID), "pull_request_review_id": review,
		"diff_hunk": "@@ -1 +1 @@", "path": c.Path, "line": c.Line, "commit_id": sha, "original_commit_id": sha,
		"user": s.User(c.User, ""), "body": c.Body, "created_at": ISO(c.CreatedAt), "updated_at": ISO(c.UpdatedAt),
		"html_url": html, "pull_request_url": prURL, "author_association": c.Association,
		"_links": map[string]any{"self": link(api), "html": link(html), "pull_request": link(prURL)}}
}
