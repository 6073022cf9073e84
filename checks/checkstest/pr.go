package checkstest

import (
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

// Option sets up the PR under test.
type Option func(*checks.PR)

// NewPR builds the PR under test reading src. Options apply in order; a
// suite wraps NewPR with the options of its fixture (identity, SHAs,
// parameters) and adds a test's own.
func NewPR(src checks.Source, opts ...Option) *checks.PR {
	pr := &checks.PR{Source: src}
	for _, o := range opts {
		o(pr)
	}
	return pr
}

// Identity sets the repository and the PR number.
func Identity(owner, repo string, number int) Option {
	return func(pr *checks.PR) { pr.Owner, pr.Repo, pr.Number = owner, repo, number }
}

// Commits pins the assessed commit H, the PR's base commit, the base tip B
// and the default branch's commit.
func Commits(head, base, baseTip, defaultSHA string) Option {
	return func(pr *checks.PR) {
		pr.HeadSHA, pr.BaseSHA, pr.BaseTip, pr.DefaultSHA = head, base, baseTip, defaultSHA
	}
}

// With sets a parameter, such as a preset's settings.
func With[T any](p *checks.Param[T], v T) Option {
	return func(pr *checks.PR) { p.Set(pr, v) }
}

// Fact fixes a fact's value, so a check is tested on its own rule with a
// hand-built model (a change set, a layout) instead of the real builder.
func Fact[T any](f *checks.Fact[T], v T) Option {
	return func(pr *checks.PR) { f.Provide(pr, v, nil) }
}

// FactError makes a fact fail with err, as when its inputs are unreadable.
func FactError[T any](f *checks.Fact[T], err error) Option {
	return func(pr *checks.PR) {
		var zero T
		f.Provide(pr, zero, err)
	}
}

// Run puts cs through checks.Run on pr, every row enabled, so requirements,
// ordering and the fail-closed policy behave as in production. It returns
// the finalized results by row number.
func Run(t testing.TB, pr *checks.PR, cs ...*checks.Check) map[int]checks.Result {
	t.Helper()
	reg, err := checks.NewRegistry(cs...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]checks.Result{}
	for _, o := range checks.Run(t.Context(), reg, pr, nil) {
		out[o.Number] = o.Result
	}
	return out
}

// RunOne runs one check through Run and returns its finalized result.
func RunOne(t testing.TB, pr *checks.PR, c *checks.Check) checks.Result {
	t.Helper()
	return Run(t, pr, c)[c.Number]
}
