package main

import (
	"context"

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

func (l ledger) SignOffs(ctx context.Context, repo string, pr int) ([]verify.SignOffRecord, error) {
	list, err := l.st.SignOffs(ctx, repo, pr)
	out := make([]verify.SignOffRecord, 0, len(list))
	for _, so := range list {
		out = append(out, fromStore(so))
	}
	return out, err
}

func (l ledger) PutSignOff(ctx context.Context, r verify.SignOffRecord) error {
	return l.st.PutSignOff(ctx, store.SignOff{Repo: r.Repo, Key: r.Key, PR: r.PR, Author: r.Author, BodySHA256: r.BodySHA256,
		SignedAt: r.SignedAt, State: r.State, Editor: r.Editor, StateAt: r.StateAt,
		AssessedSHA: r.AssessedSHA, Verdict: r.Verdict, CommentURL: r.CommentURL})
}

func fromStore(so store.SignOff) verify.SignOffRecord {
	return verify.SignOffRecord{Repo: so.Repo, Key: so.Key, PR: so.PR, Author: so.Author, BodySHA256: so.BodySHA256,
		SignedAt: so.SignedAt, State: so.State, Editor: so.Editor, StateAt: so.StateAt,
		AssessedSHA: so.AssessedSHA, Verdict: so.Verdict, CommentURL: so.CommentURL}
}
