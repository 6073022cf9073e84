package verify

import (
	"context"
	"strings"

	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// checkRun is the checks of one verification running while the gates are
// decided.
type checkRun struct {
	cancel    context.CancelFunc
	done      chan struct{}
	rows      []checks.Outcome
	cancelled bool
}

func startChecks(ctx context.Context, reg *checks.Registry, pr *checks.PR, enabled func(int) bool) *checkRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &checkRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.rows = checks.Run(ctx, reg, pr, enabled)
	}()
	return r
}

// wait returns the rows once every check has finished.
func (r *checkRun) wait() []checks.Outcome {
	<-r.done
	r.cancel()
	return r.rows
}

// stop cancels the checks and waits for them to return, so no read of
// theirs outlives the verification.
func (r *checkRun) stop() {
	if r == nil {
		return
	}
	r.cancelled = true
	r.cancel()
	<-r.done
}

// prefetch starts the reads every verification makes and that need nothing
// but the request, so they run alongside the snapshot: the PR's files (the
// scope), commits and conversation comments (the checks) and the actor's
// permission (the actor gate). Each is memoized by src, so whoever asks
// later shares the answer; errors are the askers' to handle.
func prefetch(ctx context.Context, src checks.Source, req Request) {
	go src.Files(ctx)
	go src.Commits(ctx)
	go src.Comments(ctx)
	if !req.SkipActor {
		prefetchPermission(ctx, src, req.Actor, req.ActorType)
	}
}

// prefetchPermission starts the read of login's permission that the
// trigger-actor rule will make, unless the rule refuses login without it.
func prefetchPermission(ctx context.Context, src checks.Source, login, userType string) {
	if login != "" && !strings.HasSuffix(login, "[bot]") && userType != "Bot" {
		go src.Permission(ctx, login)
	}
}

// treeReader is an evidence source that answers directory listings at a
// commit from one git tree of it, which can be read ahead (ghsource's).
type treeReader interface {
	PrefetchTree(ctx context.Context, sha string)
}

// prefetchWriters starts, as soon as the sign-off listings are in, the
// permission reads that choosing the newest sign-off makes (see newest),
// before the configuration says which phrase marks a sign-off: they are
// the reads for the candidates holding the default phrase, which is the
// phrase unless the repository configures another one.
func prefetchWriters(ctx context.Context, src checks.Source, cands []candidate) {
	seen := map[string]bool{}
	for i := range cands {
		c := &cands[i]
		l := strings.ToLower(c.so.Author)
		if seen[l] || c.bot || c.meta.dismissed || !c.holds(signoff.DefaultPhrase) {
			continue
		}
		seen[l] = true
		prefetchPermission(ctx, src, c.so.Author, c.meta.userType)
	}
}

// prefetchHead starts the reads that need only the PR's commits: the
// head's check runs (the sweep checks' first evidence) and the git trees
// of the head and the base, from which the change set lists the master
// configs, scripts and runners at both.
func prefetchHead(ctx context.Context, src checks.Source, head, base string) {
	if head != "" {
		go src.CheckRuns(ctx, head)
	}
	if t, ok := src.(treeReader); ok {
		for _, sha := range []string{head, base} {
			if sha != "" {
				t.PrefetchTree(ctx, sha)
			}
		}
	}
}

// prefetchPinned starts, once the snapshot is pinned, the reads that need
// only its commits and would otherwise wait for the checks that make them:
// GitHub's CODEOWNERS diagnostics at the base tip (the scope gate), the git
// tree of the default branch, and what the preset reads ahead (its
// checklist, CODEOWNERS, artifacts).
func prefetchPinned(ctx context.Context, snap *snapshot.Snapshot) {
	pr := snap.PR
	if pr.BaseTip != "" {
		go snap.Evidence.CodeownersErrors(ctx, pr.BaseTip)
	}
	if t, ok := snap.Evidence.(treeReader); ok && pr.DefaultSHA != "" && pr.DefaultSHA != pr.BaseSHA {
		// The change set also lists the master configs at the default branch.
		t.PrefetchTree(ctx, pr.DefaultSHA)
	}
	if snap.Preset.ReadAhead != nil {
		snap.Preset.ReadAhead(ctx, pr)
	}
}
