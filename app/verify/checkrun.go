package verify

import (
	"context"
	"strings"

	"github.com/verdict-bot/verdict/app/snapshot"
	"github.com/verdict-bot/verdict/checks"
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

// prefetchHead starts the read that needs only the head commit: its check
// runs (the sweep checks' first evidence).
func prefetchHead(ctx context.Context, src checks.Source, head string) {
	if head != "" {
		go src.CheckRuns(ctx, head)
	}
}

// prefetchPinned starts, once the snapshot is pinned, the reads that need
// only its commits and layout and would otherwise wait for the checks that
// make them: the checklist template (read by the row that waits for every
// other row), the CODEOWNERS file and GitHub's diagnostics of it at the
// base tip (the scope gate).
func prefetchPinned(ctx context.Context, snap *snapshot.Snapshot) {
	pr, l := snap.PR, snap.Layout
	if l.Checklist != "" && pr.DefaultSHA != "" {
		go snap.Evidence.ReadFile(ctx, pr.DefaultSHA, l.Checklist)
	}
	if pr.BaseTip != "" {
		if l.CodeOwners != "" {
			go snap.Evidence.ReadFile(ctx, pr.BaseTip, l.CodeOwners)
		}
		go snap.Evidence.CodeownersErrors(ctx, pr.BaseTip)
	}
}
