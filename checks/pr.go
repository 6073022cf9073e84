package checks

import (
	"sync"
	"time"
)

// PR is everything a check receives: the pinned pull request, the parsed
// sign-off, the review date, the settings and the Source. Derived facts that
// several checks share (the change-set model, the chosen sweep run) are
// computed once through Memo.
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
	Settings   *Settings
	Layout     Layout
	Source     Source

	mu    sync.Mutex
	prior map[int]Result
	memo  map[string]*memoEntry
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

// Prior returns the finalized result of check n, which must be listed in the
// calling check's After.
func (pr *PR) Prior(n int) (Result, bool) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	r, ok := pr.prior[n]
	return r, ok
}

func (pr *PR) setPrior(n int, r Result) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.prior == nil {
		pr.prior = map[int]Result{}
	}
	pr.prior[n] = r
}

type memoEntry struct {
	once sync.Once
	val  any
	err  error
}

// Memo computes f once per PR for key and returns the same value and error
// to every caller, concurrent callers included.
func Memo[T any](pr *PR, key string, f func() (T, error)) (T, error) {
	pr.mu.Lock()
	if pr.memo == nil {
		pr.memo = map[string]*memoEntry{}
	}
	e, ok := pr.memo[key]
	if !ok {
		e = &memoEntry{}
		pr.memo[key] = e
	}
	pr.mu.Unlock()
	e.once.Do(func() { e.val, e.err = f() })
	v, _ := e.val.(T)
	return v, e.err
}

// HasLabel reports whether the PR carries the label.
func (pr *PR) HasLabel(name string) bool {
	for _, l := range pr.Labels {
		if l == name {
			return true
		}
	}
	return false
}
