package main

import (
	"context"
	"fmt"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/verify"
)

// ledger keeps the verifier's sign-off records in the store's
// verdict_signoff table.
type ledger struct{ st *store.Store }

func (l ledger) LookupSignOff(ctx context.Context, repo, key string) (verify.SignOffRecord, bool, error) {
	so, ok, err := l.st.LookupSignOff(ctx, repo, key)
	return fromStore(so), ok, err
}

func (l ledger) FirstAssessed(ctx context.Context, repo string, pr int, key, bodySHA256 string) (string, bool, error) {
	return l.st.FirstAssessed(ctx, repo, pr, key, bodySHA256)
}

func (l ledger) SignOffs(ctx context.Context, repo string, pr int) ([]verify.SignOffRecord, error) {
	list, err := l.st.SignOffs(ctx, repo, pr)
	out := make([]verify.SignOffRecord, 0, len(list))
	for _, so := range list {
		out = append(out, fromStore(so))
	}
	return out, err
}

// PutSignOff stores r and, when it newly marks the sign-off tampered or
// withdrawn, adds that to the PR's history.
func (l ledger) PutSignOff(ctx context.Context, r verify.SignOffRecord) error {
	prev, had, err := l.st.LookupSignOff(ctx, r.Repo, r.Key)
	if err != nil {
		return err
	}
	if err := l.put(ctx, r); err != nil {
		return err
	}
	if r.State == verify.StateAuthentic || (had && prev.State == r.State && prev.Editor == r.Editor) {
		return nil
	}
	e := store.Event{Repo: r.Repo, PR: r.PR, SHA: r.AssessedSHA, SignOffKey: r.Key, Actor: r.Editor, At: r.StateAt}
	en, zh := "an editor Verdict could not determine", "无法确定的编辑者"
	if r.Editor != "" {
		en, zh = "@"+r.Editor, "@"+r.Editor
	}
	switch r.State {
	case verify.StateTampered:
		e.Kind = store.KindTamper
		e.Detail = fmt.Sprintf("edited by %s, not by its author @%s / 由 %s 编辑，而非其作者 @%s", en, r.Author, zh, r.Author)
	case verify.StateWithdrawn:
		e.Kind = store.KindWithdrawal
		e.Detail = fmt.Sprintf("withdrawn by %s / 已被 %s 撤回", en, zh)
	default:
		return nil
	}
	return l.st.RecordEvent(ctx, e)
}

func (l ledger) put(ctx context.Context, r verify.SignOffRecord) error {
	return l.st.PutSignOff(ctx, store.SignOff{Repo: r.Repo, Key: r.Key, PR: r.PR, Author: r.Author, BodySHA256: r.BodySHA256,
		SignedAt: r.SignedAt, State: r.State, Editor: r.Editor, StateAt: r.StateAt,
		AssessedSHA: r.AssessedSHA, Verdict: r.Verdict, CommentURL: r.CommentURL, CommentNodeID: r.CommentNodeID,
		AssessedBase: r.AssessedBase})
}

func (l ledger) SetMinimized(ctx context.Context, repo, key, nodeID string, at time.Time) (bool, error) {
	return l.st.SetMinimized(ctx, repo, key, nodeID, at)
}

func (l ledger) NoticeMinimized(ctx context.Context, nodeID string) (bool, error) {
	return l.st.NoticeMinimized(ctx, nodeID)
}

func (l ledger) SetNoticeMinimized(ctx context.Context, repo string, pr int, nodeID string, at time.Time) error {
	return l.st.SetNoticeMinimized(ctx, repo, pr, nodeID, at)
}

func fromStore(so store.SignOff) verify.SignOffRecord {
	return verify.SignOffRecord{Repo: so.Repo, Key: so.Key, PR: so.PR, Author: so.Author, BodySHA256: so.BodySHA256,
		SignedAt: so.SignedAt, State: so.State, Editor: so.Editor, StateAt: so.StateAt,
		AssessedSHA: so.AssessedSHA, Verdict: so.Verdict, CommentURL: so.CommentURL,
		CommentNodeID: so.CommentNodeID, MinimizedAt: so.MinimizedAt, AssessedBase: so.AssessedBase}
}

func (l ledger) OpenedRun(ctx context.Context, r verify.OpenRun) error {
	return l.st.PutOpenRun(ctx, store.OpenRun{Repo: r.Owner + "/" + r.Repo, Key: r.Key, HeadSHA: r.HeadSHA, PR: r.Number,
		Installation: r.Installation, OpenedAt: r.At})
}

func (l ledger) ClosedRun(ctx context.Context, repo, key, sha string) error {
	return l.st.CloseOpenRun(ctx, repo, key, sha)
}
