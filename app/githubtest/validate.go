package githubtest

import (
	"fmt"
	"strings"
	"time"
)

func (f *Fixture) normalizePull(r *Repo, p *Pull, ids *idGen) error {
	if p.State == "" {
		p.State = "open"
	}
	if p.State != "open" && p.State != "closed" {
		return fmt.Errorf("state %q, want open or closed", p.State)
	}
	if p.Merged && p.State != "closed" {
		return fmt.Errorf("merged PRs must be closed")
	}
	if p.Merged && p.MergedAt.IsZero() {
		p.MergedAt = f.Now.Add(-time.Hour)
	}
	if p.User == "" {
		p.User = "octocat"
	}
	if p.Title == "" {
		p.Title = fmt.Sprintf("PR %d", p.Number)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = f.Now.Add(-72 * time.Hour)
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = f.Now.Add(-time.Hour)
	}
	if p.Head.Ref == "" {
		p.Head.Ref = fmt.Sprintf("pr-%d", p.Number)
	}
	if p.Base.Ref == "" {
		p.Base.Ref = r.DefaultBranch
	}
	head, base := r.commit(p.Head.Commit), r.commit(p.Base.Commit)
	if p.Head.Commit == "" || (head == nil && !hexSHA.MatchString(p.Head.Commit)) {
		return fmt.Errorf("head.commit %q is neither a declared commit nor a SHA", p.Head.Commit)
	}
	if p.Base.Commit == "" {
		if b, ok := r.Branches[p.Base.Ref]; ok {
			p.Base.Commit = b
			base = r.commit(b)
		}
	}
	if p.Base.Commit == "" || (base == nil && !hexSHA.MatchString(p.Base.Commit)) {
		return fmt.Errorf("base.commit %q is neither a declared commit nor a SHA", p.Base.Commit)
	}
	if len(p.Commits) == 0 {
		p.Commits = []string{p.Head.Commit}
	}
	for _, c := range p.Commits {
		if r.commit(c) == nil && !hexSHA.MatchString(c) {
			return fmt.Errorf("commits: %q is neither a declared commit nor a SHA", c)
		}
	}
	if len(p.Files) == 0 {
		if head == nil || base == nil || head.Tree == "" || base.Tree == "" {
			return fmt.Errorf("files are not listed and cannot be generated: head and base must be commits with trees")
		}
		p.Files = diffTrees(f.Trees[base.Tree].resolved, f.Trees[head.Tree].resolved)
		if len(p.Files) == 0 {
			return fmt.Errorf("head tree %q and base tree %q are identical, so the PR changes nothing", head.Tree, base.Tree)
		}
	}
	seen := map[string]bool{}
	for i, fl := range p.Files {
		if fl.Filename == "" {
			return fmt.Errorf("files[%d]: filename is required", i)
		}
		if seen[fl.Filename] {
			return fmt.Errorf("file %s listed twice", fl.Filename)
		}
		seen[fl.Filename] = true
		if fl.Status == "" {
			fl.Status = "modified"
			if fl.PreviousFilename != "" {
				fl.Status = "renamed"
			}
		}
		if fl.Additions == 0 && fl.Deletions == 0 && fl.Patch != "" {
			fl.Additions, fl.Deletions = countPatch(fl.Patch)
		}
	}
	for _, c := range p.Comments {
		c.ID = ids.take("comment", c.ID)
		if c.User == "" {
			return fmt.Errorf("comment %d: user is required", c.ID)
		}
		if c.Association == "" {
			c.Association = "NONE"
		}
		if c.CreatedAt.IsZero() {
			c.CreatedAt = p.CreatedAt.Add(time.Duration(c.ID%100000) * time.Minute)
		}
		if c.UpdatedAt.IsZero() {
			c.UpdatedAt = c.CreatedAt
		}
		for _, rc := range c.Reactions {
			rc.ID = ids.take("reaction", rc.ID)
			if rc.User == "" || rc.Content == "" {
				return fmt.Errorf("comment %d: reactions need user and content", c.ID)
			}
		}
	}
	for _, rv := range p.Reviews {
		rv.ID = ids.take("review", rv.ID)
		if rv.User == "" {
			return fmt.Errorf("review %d: user is required", rv.ID)
		}
		if rv.State == "" {
			rv.State = "COMMENTED"
		}
		if rv.Association == "" {
			rv.Association = "NONE"
		}
		if rv.Commit == "" {
			rv.Commit = p.Head.Commit
		}
		if rv.SubmittedAt.IsZero() {
			rv.SubmittedAt = p.UpdatedAt
		}
	}
	for _, rc := range p.ReviewComments {
		rc.ID = ids.take("reviewcomment", rc.ID)
		if rc.User == "" {
			return fmt.Errorf("review comment %d: user is required", rc.ID)
		}
		if rc.Association == "" {
			rc.Association = "NONE"
		}
		if rc.Commit == "" {
			rc.Commit = p.Head.Commit
		}
		if rc.CreatedAt.IsZero() {
			rc.CreatedAt = p.UpdatedAt
		}
		if rc.UpdatedAt.IsZero() {
			rc.UpdatedAt = rc.CreatedAt
		}
	}
	return nil
}

func countPatch(patch string) (add, del int) {
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

// checkNoNils rejects empty list items and map values ("- " or "key:" with
// nothing after it in YAML), which would otherwise be nil pointers.
func (f *Fixture) checkNoNils() error {
	for _, n := range sortedKeys(f.Trees) {
		if f.Trees[n] == nil {
			f.Trees[n] = &Tree{}
		}
	}
	for _, u := range sortedKeys(f.Pages) {
		if f.Pages[u] == nil {
			return fmt.Errorf("page %s: empty entry", u)
		}
	}
	for i, t := range f.Teams {
		if t == nil {
			return fmt.Errorf("teams[%d]: empty entry", i)
		}
	}
	for i, r := range f.Repos {
		if r == nil {
			return fmt.Errorf("repos[%d]: empty entry", i)
		}
		for j, c := range r.Commits {
			if c == nil {
				return fmt.Errorf("repo %s: commits[%d]: empty entry", r.FullName, j)
			}
		}
		for _, k := range sortedKeys(r.CheckRuns) {
			for j, c := range r.CheckRuns[k] {
				if c == nil {
					return fmt.Errorf("repo %s: check_runs[%s][%d]: empty entry", r.FullName, k, j)
				}
			}
		}
		for j, w := range r.WorkflowRuns {
			if w == nil {
				return fmt.Errorf("repo %s: workflow_runs[%d]: empty entry", r.FullName, j)
			}
			for k, a := range w.Artifacts {
				if a == nil {
					return fmt.Errorf("repo %s: workflow run %d: artifacts[%d]: empty entry", r.FullName, w.ID, k)
				}
			}
		}
		for j, p := range r.Pulls {
			if p == nil {
				return fmt.Errorf("repo %s: pulls[%d]: empty entry", r.FullName, j)
			}
			where := fmt.Sprintf("repo %s: pull #%d", r.FullName, p.Number)
			for k, x := range p.Files {
				if x == nil {
					return fmt.Errorf("%s: files[%d]: empty entry", where, k)
				}
			}
			for k, x := range p.Comments {
				if x == nil {
					return fmt.Errorf("%s: comments[%d]: empty entry", where, k)
				}
				for l, rc := range x.Reactions {
					if rc == nil {
						return fmt.Errorf("%s: comment %d: reactions[%d]: empty entry", where, x.ID, l)
					}
				}
			}
			for k, x := range p.Reviews {
				if x == nil {
					return fmt.Errorf("%s: reviews[%d]: empty entry", where, k)
				}
			}
			for k, x := range p.ReviewComments {
				if x == nil {
					return fmt.Errorf("%s: review_comments[%d]: empty entry", where, k)
				}
			}
		}
	}
	return nil
}
