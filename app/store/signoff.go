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
	// AssessedBase is the base commit that verdict read its rules at.
	AssessedBase string
	// CommentNodeID is the verdict comment's GraphQL node ID ("" when not
	// known), and MinimizedAt when Verdict hid it as outdated (zero:
	// shown). PutSignOff keeps MinimizedAt while the comment stays the
	// same; SetMinimized changes it.
	CommentNodeID string
	MinimizedAt   time.Time
}

const signOffColumns = `repo, signoff_key, pr_number, author, body_sha256, signed_at, state, editor, state_at, assessed_sha, verdict, comment_url, comment_node_id, minimized_at, assessed_base`

// PutSignOff stores s, replacing what was kept for its key but its
// minimization, which only SetMinimized changes, and which a comment
// posted anew (another node ID) does not inherit. An empty CommentNodeID
// keeps the one stored.
func (s *Store) PutSignOff(ctx context.Context, so SignOff) error {
	_, err := s.db.Exec(ctx, `INSERT INTO verdict_signoff (`+signOffColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, $14)
		ON CONFLICT (repo, signoff_key) DO UPDATE SET pr_number = excluded.pr_number, author = excluded.author,
			body_sha256 = excluded.body_sha256, signed_at = excluded.signed_at, state = excluded.state,
			editor = excluded.editor, state_at = excluded.state_at, assessed_sha = excluded.assessed_sha,
			verdict = excluded.verdict, comment_url = excluded.comment_url, assessed_base = excluded.assessed_base,
			comment_node_id = CASE WHEN excluded.comment_node_id = '' THEN verdict_signoff.comment_node_id
				ELSE excluded.comment_node_id END,
			minimized_at = CASE WHEN excluded.comment_node_id IN ('', verdict_signoff.comment_node_id)
				THEN verdict_signoff.minimized_at ELSE 0 END`,
		strings.ToLower(so.Repo), so.Key, so.PR, so.Author, so.BodySHA256, so.SignedAt.UnixMilli(), so.State,
		so.Editor, so.StateAt.UnixMilli(), so.AssessedSHA, so.Verdict, so.CommentURL, so.CommentNodeID, so.AssessedBase)
	if err != nil {
		return fmt.Errorf("storing sign-off %s of %s: %w", so.Key, so.Repo, err)
	}
	return nil
}

// SetMinimized records that the verdict comment nodeID of a sign-off was
// hidden as outdated at (or shown again, at zero). It changes nothing when
// the sign-off's comment is another by now, and reports whether it did.
func (s *Store) SetMinimized(ctx context.Context, repo, key, nodeID string, at time.Time) (bool, error) {
	ms := int64(0)
	if !at.IsZero() {
		ms = at.UnixMilli()
	}
	n, err := s.db.Exec(ctx, `UPDATE verdict_signoff SET minimized_at = $4
		WHERE repo = $1 AND signoff_key = $2 AND comment_node_id = $3`, strings.ToLower(repo), key, nodeID, ms)
	if err != nil {
		return false, fmt.Errorf("recording the minimization of sign-off %s's verdict on %s: %w", key, repo, err)
	}
	return n > 0, nil
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
	var signed, at, minimized int64
	if err := r.Scan(&so.Repo, &so.Key, &so.PR, &so.Author, &so.BodySHA256, &signed, &so.State, &so.Editor, &at,
		&so.AssessedSHA, &so.Verdict, &so.CommentURL, &so.CommentNodeID, &minimized, &so.AssessedBase); err != nil {
		return SignOff{}, err
	}
	so.SignedAt, so.StateAt = time.UnixMilli(signed).UTC(), time.UnixMilli(at).UTC()
	if minimized != 0 {
		so.MinimizedAt = time.UnixMilli(minimized).UTC()
	}
	return so, nil
}

// Standing is the sign-off of list (one PR's) whose verdict stands: the
// newest one not withdrawn that has a verdict (by signing time, then key);
// ok is false when none does.
func Standing(list []SignOff) (so SignOff, ok bool) {
	for _, r := range list {
		if r.State == SignOffWithdrawn || r.Verdict == "" {
			continue
		}
		if !ok || r.SignedAt.After(so.SignedAt) || r.SignedAt.Equal(so.SignedAt) && r.Key > so.Key {
			so, ok = r, true
		}
	}
	return so, ok
}

// NoticeMinimized reports whether Verdict hid its notice nodeID as outdated.
func (s *Store) NoticeMinimized(ctx context.Context, nodeID string) (bool, error) {
	var n int
	err := s.db.QueryRow(ctx, `SELECT COUNT(*) FROM verdict_minimized_notice WHERE node_id = $1`, nodeID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("reading whether notice %s is hidden: %w", nodeID, err)
	}
	return n > 0, nil
}

// SetNoticeMinimized records that Verdict hid its notice nodeID on repo#pr
// at (or showed it again, at zero).
func (s *Store) SetNoticeMinimized(ctx context.Context, repo string, pr int, nodeID string, at time.Time) error {
	var err error
	if at.IsZero() {
		_, err = s.db.Exec(ctx, `DELETE FROM verdict_minimized_notice WHERE node_id = $1`, nodeID)
	} else {
		_, err = s.db.Exec(ctx, `INSERT INTO verdict_minimized_notice (node_id, repo, pr_number, minimized_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (node_id) DO NOTHING`, nodeID, strings.ToLower(repo), pr, at.UnixMilli())
	}
	if err != nil {
		return fmt.Errorf("recording the notice %s as hidden or shown: %w", nodeID, err)
	}
	return nil
}
