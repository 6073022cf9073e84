package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Sign-off states kept in verdict_signoff.
const (
	// SignOffAuthentic: the body is the one its author last wrote.
	SignOffAuthentic = "authentic"
	// SignOffTampered: someone other than the author changed the body; the
	// mark stays until the author edits it again or posts a new sign-off.
	SignOffTampered = "tampered"
	// SignOffWithdrawn: the sign-off was deleted or its review dismissed.
	SignOffWithdrawn = "withdrawn"
)

// SignOff is what the store keeps of one sign-off: its last authentic
// version (author and body hash), its integrity state and the last verdict
// published for it. Repo is owner/name, compared case-insensitively.
type SignOff struct {
	Repo string
	Key  string
	PR   int
	// Author and BodySHA256 describe the last version its author wrote.
	Author     string
	BodySHA256 string
	// SignedAt is when the sign-off was posted: the newest authentic
	// sign-off is the one whose verdict the shared status shows.
	SignedAt time.Time
	State    string
	// Editor is who tampered with (or withdrew) the sign-off; "" when
	// authentic or unknown.
	Editor string
	// StateAt is when State last changed.
	StateAt time.Time
	// AssessedSHA, Verdict and CommentURL are the last verdict published
	// for it ("" before the first).
	AssessedSHA string
	Verdict     string
	CommentURL  string
}

const signOffColumns = `repo, signoff_key, pr_number, author, body_sha256, signed_at, state, editor, state_at, assessed_sha, verdict, comment_url`

// PutSignOff stores s, replacing what was kept for its key.
func (s *Store) PutSignOff(ctx context.Context, so SignOff) error {
	_, err := s.db.Exec(ctx, `INSERT INTO verdict_signoff (`+signOffColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (repo, signoff_key) DO UPDATE SET pr_number = excluded.pr_number, author = excluded.author,
			body_sha256 = excluded.body_sha256, signed_at = excluded.signed_at, state = excluded.state,
			editor = excluded.editor, state_at = excluded.state_at, assessed_sha = excluded.assessed_sha,
			verdict = excluded.verdict, comment_url = excluded.comment_url`,
		strings.ToLower(so.Repo), so.Key, so.PR, so.Author, so.BodySHA256, so.SignedAt.UnixMilli(), so.State,
		so.Editor, so.StateAt.UnixMilli(), so.AssessedSHA, so.Verdict, so.CommentURL)
	if err != nil {
		return fmt.Errorf("storing sign-off %s of %s: %w", so.Key, so.Repo, err)
	}
	return nil
}

// LookupSignOff returns what is kept of one sign-off; ok is false when
// nothing is.
func (s *Store) LookupSignOff(ctx context.Context, repo, key string) (so SignOff, ok bool, err error) {
	row := s.db.QueryRow(ctx, `SELECT `+signOffColumns+` FROM verdict_signoff WHERE repo = $1 AND signoff_key = $2`,
		strings.ToLower(repo), key)
	so, err = scanSignOff(row)
	if err == ErrNoRows {
		return SignOff{}, false, nil
	}
	if err != nil {
		return SignOff{}, false, fmt.Errorf("reading sign-off %s of %s: %w", key, repo, err)
	}
	return so, true, nil
}

// SignOffs returns every sign-off kept for one PR, oldest first.
func (s *Store) SignOffs(ctx context.Context, repo string, pr int) ([]SignOff, error) {
	var out []SignOff
	err := s.each(ctx, `SELECT `+signOffColumns+` FROM verdict_signoff WHERE repo = $1 AND pr_number = $2
		ORDER BY signed_at, signoff_key`, []any{strings.ToLower(repo), pr}, func(r Row) error {
		so, err := scanSignOff(r)
		if err == nil {
			out = append(out, so)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading sign-offs of %s#%d: %w", repo, pr, err)
	}
	return out, nil
}

func scanSignOff(r Row) (SignOff, error) {
	var so SignOff
	var signed, at int64
	if err := r.Scan(&so.Repo, &so.Key, &so.PR, &so.Author, &so.BodySHA256, &signed, &so.State, &so.Editor, &at,
		&so.AssessedSHA, &so.Verdict, &so.CommentURL); err != nil {
		return SignOff{}, err
	}
	so.SignedAt, so.StateAt = time.UnixMilli(signed).UTC(), time.UnixMilli(at).UTC()
	return so, nil
}
