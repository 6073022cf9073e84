package githubtest

import (
	"fmt"
	"strings"
	"time"
)

// gitUserJSON is a commit's author or committer.
func gitUserJSON(login string, date time.Time) map[string]any {
	return map[string]any{"name": login, "email": login + "@users.noreply.github.com", "date": iso(date)}
}

// commitJSON is the commit object of the PR commits list and of a branch.
func (s *Server) commitJSON(rs *repoState, sha, msg string, date time.Time, author string) map[string]any {
	if author == "" {
		author = "octocat"
	}
	api := s.URL + "/repos/" + rs.r.FullName
	tree := s.rootTrees[""]
	if c := rs.r.commit(sha); c != nil {
		tree = s.rootTrees[c.Tree]
	}
	return map[string]any{"sha": sha, "node_id": nodeID("C", userID(sha)), "url": api + "/commits/" + sha,
		"html_url": "https://github.com/" + rs.r.FullName + "/commit/" + sha, "comments_url": api + "/commits/" + sha + "/comments",
		"commit": map[string]any{"url": api + "/git/commits/" + sha, "message": msg, "comment_count": 0,
			"author": gitUserJSON(author, date), "committer": gitUserJSON(author, date),
			"tree": map[string]any{"sha": tree, "url": api + "/git/trees/" + tree}},
		"author": s.userJSON(author, ""), "committer": s.userJSON(author, ""), "parents": []any{}}
}

func (s *Server) labelsJSON(rs *repoState, names []string) []map[string]any {
	out := []map[string]any{}
	for _, n := range names {
		id := userID(rs.r.FullName + "#" + n)
		out = append(out, map[string]any{"id": id, "node_id": nodeID("L", id), "name": n, "description": nil, "color": "ededed",
			"default": false, "url": s.URL + "/repos/" + rs.r.FullName + "/labels/" + n})
	}
	return out
}

func link(href string) map[string]any { return map[string]any{"href": href} }

// pullJSON is the pull-request object.
func (s *Server) pullJSON(rs *repoState, pr *Pull) map[string]any {
	add, del := 0, 0
	for _, f := range pr.Files {
		add += f.Additions
		del += f.Deletions
	}
	headRepo := pr.Head.Repo
	if headRepo == "" {
		headRepo = rs.r.FullName
	}
	side := func(ref, commit, full string) map[string]any {
		owner, _, _ := strings.Cut(full, "/")
		return map[string]any{"ref": ref, "sha": s.resolveSHA(rs, commit), "label": owner + ":" + ref,
			"user": s.userJSON(owner, "Organization"), "repo": s.repoJSON(full, rs.r.DefaultBranch, rs.r.Private)}
	}
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pr.Number)
	issue := fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, rs.r.FullName, pr.Number)
	html := fmt.Sprintf("https://github.com/%s/pull/%d", rs.r.FullName, pr.Number)
	statuses := fmt.Sprintf("%s/repos/%s/statuses/%s", s.URL, rs.r.FullName, s.resolveSHA(rs, pr.Head.Commit))
	var closed, mergedAt, mergeSHA any
	if pr.State == "closed" {
		closed = iso(pr.UpdatedAt)
	}
	if pr.Merged {
		mergedAt, mergeSHA = iso(pr.MergedAt), CommitSHA(rs.r.FullName, fmt.Sprintf("merge-%d", pr.Number))
	}
	id := int64(1800000000 + pr.Number)
	return map[string]any{
		"url": api, "id": id, "node_id": nodeID("PR", id), "html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch",
		"issue_url": issue, "commits_url": api + "/commits", "review_comments_url": api + "/comments",
		"review_comment_url": s.URL + "/repos/" + rs.r.FullName + "/pulls/comments{/number}", "comments_url": issue + "/comments",
		"statuses_url": statuses, "number": pr.Number, "state": pr.State, "locked": false, "title": pr.Title, "body": pr.Body,
		"user": s.userJSON(pr.User, pr.UserType), "labels": s.labelsJSON(rs, pr.Labels), "milestone": nil, "active_lock_reason": nil,
		"created_at": iso(pr.CreatedAt), "updated_at": iso(pr.UpdatedAt), "closed_at": closed, "merged_at": mergedAt,
		"merge_commit_sha": mergeSHA, "assignee": nil, "assignees": []any{}, "requested_reviewers": []any{}, "requested_teams": []any{},
		"head": side(pr.Head.Ref, pr.Head.Commit, headRepo), "base": side(pr.Base.Ref, pr.Base.Commit, rs.r.FullName),
		"_links": map[string]any{"self": link(api), "html": link(html), "issue": link(issue), "comments": link(issue + "/comments"),
			"review_comments": link(api + "/comments"), "review_comment": link(s.URL + "/repos/" + rs.r.FullName + "/pulls/comments{/number}"),
			"commits": link(api + "/commits"), "statuses": link(statuses)},
		"author_association": association(rs, pr.User), "auto_merge": nil, "draft": pr.Draft, "merged": pr.Merged,
		"mergeable": nil, "rebaseable": nil, "mergeable_state": "unknown", "merged_by": nil,
		"comments": len(rs.issueCs[pr.Number]), "review_comments": len(pr.ReviewComments), "maintainer_can_modify": false,
		"commits": len(pr.Commits), "additions": add, "deletions": del, "changed_files": len(pr.Files),
	}
}

// issueJSON is the issue object of a pull request.
func (s *Server) issueJSON(rs *repoState, pr *Pull) map[string]any {
	pj := s.pullJSON(rs, pr)
	api := pj["issue_url"].(string)
	id := int64(1700000000 + pr.Number)
	return map[string]any{"id": id, "node_id": nodeID("I", id), "url": api, "repository_url": s.URL + "/repos/" + rs.r.FullName,
		"labels_url": api + "/labels{/name}", "comments_url": api + "/comments", "events_url": api + "/events",
		"html_url": pj["html_url"], "number": pr.Number, "state": pr.State, "title": pr.Title, "body": pr.Body, "user": pj["user"],
		"labels": pj["labels"], "assignee": nil, "assignees": []any{}, "milestone": nil, "locked": false, "active_lock_reason": nil,
		"comments": pj["comments"], "closed_at": pj["closed_at"], "created_at": pj["created_at"], "updated_at": pj["updated_at"],
		"author_association": pj["author_association"], "draft": pr.Draft,
		"pull_request": map[string]any{"url": pj["url"], "html_url": pj["html_url"], "diff_url": pj["diff_url"],
			"patch_url": pj["patch_url"], "merged_at": pj["merged_at"]}}
}

func (s *Server) fileJSON(rs *repoState, pr *Pull, f *File) map[string]any {
	head := s.resolveSHA(rs, pr.Head.Commit)
	var sha any
	files, _, _ := s.treeAt(rs, head)
	if data, ok := files[f.Filename]; ok && f.Status != "removed" {
		sha = blobSHA(data)
	}
	out := map[string]any{"sha": sha, "filename": f.Filename, "status": f.Status, "additions": f.Additions, "deletions": f.Deletions,
		"changes":      f.Additions + f.Deletions,
		"blob_url":     fmt.Sprintf("https://github.com/%s/blob/%s/%s", rs.r.FullName, head, f.Filename),
		"raw_url":      fmt.Sprintf("https://github.com/%s/raw/%s/%s", rs.r.FullName, head, f.Filename),
		"contents_url": fmt.Sprintf("%s/repos/%s/contents/%s?ref=%s", s.URL, rs.r.FullName, f.Filename, head)}
	if f.PreviousFilename != "" {
		out["previous_filename"] = f.PreviousFilename
	}
	if !f.NoPatch && f.Patch != "" {
		out["patch"] = f.Patch
	}
	return out
}

func (s *Server) reviewJSON(rs *repoState, pr *Pull, rv *Review) map[string]any {
	html := fmt.Sprintf("https://github.com/%s/pull/%d#pullrequestreview-%d", rs.r.FullName, pr.Number, rv.ID)
	api := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pr.Number)
	return map[string]any{"id": rv.ID, "node_id": nodeID("PRR", rv.ID), "user": s.userJSON(rv.User, ""), "body": rv.Body,
		"state": rv.State, "submitted_at": iso(rv.SubmittedAt), "commit_id": s.resolveSHA(rs, rv.Commit), "html_url": html,
		"pull_request_url": api, "author_association": rv.Association,
		"_links": map[string]any{"html": link(html), "pull_request": link(api)}}
}

func (s *Server) reviewCommentJSON(rs *repoState, pull *Pull, c *ReviewComment) map[string]any {
	html := fmt.Sprintf("https://github.com/%s/pull/%d#discussion_r%d", rs.r.FullName, pull.Number, c.ID)
	api := fmt.Sprintf("%s/repos/%s/pulls/comments/%d", s.URL, rs.r.FullName, c.ID)
	prURL := fmt.Sprintf("%s/repos/%s/pulls/%d", s.URL, rs.r.FullName, pull.Number)
	var review any
	if c.ReviewID != 0 {
		review = c.ReviewID
	}
	sha := s.resolveSHA(rs, c.Commit)
	return map[string]any{"url": api, "id": c.ID, "node_id": nodeID("PRRC", c.ID), "pull_request_review_id": review,
		"diff_hunk": "@@ -1 +1 @@", "path": c.Path, "line": c.Line, "commit_id": sha, "original_commit_id": sha,
		"user": s.userJSON(c.User, ""), "body": c.Body, "created_at": iso(c.CreatedAt), "updated_at": iso(c.UpdatedAt),
		"html_url": html, "pull_request_url": prURL, "author_association": c.Association,
		"_links": map[string]any{"self": link(api), "html": link(html), "pull_request": link(prURL)}}
}

// reactionsJSON is the reaction-rollup of a comment.
func (s *Server) reactionsJSON(cs *commentState) map[string]any {
	out := map[string]any{"url": fmt.Sprintf("%s/repos/%s/issues/comments/%d/reactions", s.URL, cs.repo.r.FullName, cs.c.ID),
		"total_count": len(cs.reactions)}
	for c := range reactionContents {
		out[c] = 0
	}
	for _, r := range cs.reactions {
		out[r.Content] = out[r.Content].(int) + 1
	}
	return out
}
