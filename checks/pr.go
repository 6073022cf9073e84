package checks

import (
	"context"
	"slices"
	"sync"
	"time"
)

// PR is everything a check receives: the pinned pull request, the parsed
// sign-off, the review date and the Source. Presets hand in their own
// inputs as Params and share derived values as Facts, both stored here per
// verification.
type PR struct {
	Owner, Repo string
	Number      int
	Title, Body string
	State       string
	Draft       bool
	Author      string
	HTMLURL     string
	Labels      []string
	// ChangedFiles is the count GitHub reports; Files() must agree.
	ChangedFiles int

	// HeadSHA is H, the assessed commit. Everything PR-side is read at H.
	HeadSHA string
	HeadRef string
	// BaseRef/BaseSHA are the PR's base branch and the base commit GitHub
	// recorded for the PR (the comparison point for "what changed").
	BaseRef string
	BaseSHA string
	// BaseTip is B, the current tip of the base branch: CODEOWNERS is read there.
	BaseTip string
	// DefaultBranch and DefaultSHA pin the trusted inputs (checklist
	// template, MODELS.md, golden curves, thresholds, waivers).
	DefaultBranch string
	DefaultSHA    string

	SignOff    SignOff
	ReviewDate time.Time
	Source     Source
	// Authorship, when set, tells who wrote the sign-off's body and for
	// which commit (see Authored); the app decides it beside the rows, so
	// a call may wait. Nil where nobody judges it (a local check).
	Authorship func(ctx context.Context) (Authorship, error)

	mu      sync.Mutex
	results map[int]Result
	facts   map[any]*factEntry
	params  map[any]any
}

// FullName is owner/repo.
func (pr *PR) FullName() string { return pr.Owner + "/" + pr.Repo }

// Short is the 7-character form of a SHA, as reasons print it.
func Short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// HasLabel reports whether the PR carries the label.
func (pr *PR) HasLabel(name string) bool { return slices.Contains(pr.Labels, name) }

// ResultOf returns the finalized result of the registered row numbered
// c.Number. ok is false when no such row ran in this verification, or when
// the running check did not declare c in its Requires (the row then fails).
func (pr *PR) ResultOf(ctx context.Context, c *Check) (Result, bool) {
	if err := frameOf(ctx).reading(c); err != nil {
		return Result{}, false
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	r, ok := pr.results[c.Number]
	return r, ok
}

func (pr *PR) setResult(n int, r Result) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.results == nil {
		pr.results = map[int]Result{}
	}
	pr.results[n] = r
}

func (pr *PR) fact(key any) *factEntry {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.facts == nil {
		pr.facts = map[any]*factEntry{}
	}
	e, ok := pr.facts[key]
	if !ok {
		e = &factEntry{}
		pr.facts[key] = e
	}
	return e
}
