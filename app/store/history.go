package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// EventKind names what happened on a PR.
type EventKind string

// The kinds of the history of a PR.
const (
	// KindVerification is a published verdict (Event.Verification is set).
	KindVerification EventKind = "verification"
	// KindCommand is a slash command Verdict acted on (recheck, reuse).
	KindCommand EventKind = "command"
	// KindBypass is an admin bypass a verification counted.
	KindBypass EventKind = "bypass"
	// KindTamper is a verdict comment found edited by someone else.
	KindTamper EventKind = "tamper"
	// KindWithdrawal is a sign-off withdrawn (deleted or phrase removed).
	KindWithdrawal EventKind = "withdrawal"
	// KindUnverified is a verification given up (Detail says why).
	KindUnverified EventKind = "unverified"
	// KindDeferred is a verification put off until its installation's
	// rate limit resets (Detail says how much was left, and until when).
	KindDeferred EventKind = "deferred"
)

// Event is one entry of a PR's history.
type Event struct {
	Kind       EventKind
	Repo       string // owner/name
	PR         int
	SHA        string // the commit concerned ("" when none)
	SignOffKey string
	Actor      string // the login that caused it ("" for Verdict itself)
	// Detail is one human-readable line (the command, the bypass reason).
	Detail     string
	DeliveryID string
	At         time.Time
	// Verification is the record of a KindVerification event.
	Verification *Verification
}

// Verification is what one verification established.
type Verification struct {
	Verdict string // PASS, WARN or REJECTED
	// BodySHA256 is the hex SHA-256 of the sign-off body assessed, so a
	// later edit of the sign-off can be told apart from what was verified.
	BodySHA256 string
	CommentURL string
	Rows       []CheckRow
	Duration   time.Duration
	APICalls   int
}

// CheckRow is one check's result as the history keeps it.
type CheckRow struct {
	Check    int        `json:"check"`
	NameEN   string     `json:"name_en"`
	NameZH   string     `json:"name_zh"`
	Advisory bool       `json:"advisory,omitempty"`
	Status   string     `json:"status"`
	ReasonEN string     `json:"reason_en"`
	ReasonZH string     `json:"reason_zh"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence is one link or value behind a row.
type Evidence struct {
	Label string `json:"label"`
	URL   string `json:"url,omitempty"`
	Value string `json:"value,omitempty"`
}

// insertEventSQL is an INSERT ... SELECT so that a WHERE clause can
// follow; the casts give PostgreSQL the parameter types a bare SELECT
// cannot infer.
const insertEventSQL = `INSERT INTO verdict_event
	(repo, pr_number, kind, head_sha, signoff_key, actor, detail, delivery_id, at,
	 verdict, body_sha256, comment_url, rows_json, duration_ms, api_calls, seq)
	SELECT CAST($1 AS TEXT), CAST($2 AS BIGINT), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS TEXT),
	 CAST($6 AS TEXT), CAST($7 AS TEXT), CAST($8 AS TEXT), CAST($9 AS BIGINT), CAST($10 AS TEXT),
	 CAST($11 AS TEXT), CAST($12 AS TEXT), CAST($13 AS TEXT), CAST($14 AS BIGINT), CAST($15 AS INTEGER),
	 CAST($16 AS BIGINT)`

// RecordEvent appends e to the PR's history. At defaults to now. An event
// other than a verification that is already recorded (same kind, PR,
// commit, sign-off, actor, detail and delivery) is not recorded again, nor
// is a verification of the same delivery (when it has one), commit and body
// to the same verdict. A verification also lands in verdict_audit, the older trail of
// verdicts.
func (s *Store) RecordEvent(ctx context.Context, e Event) error {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	if e.Kind == "" || e.Repo == "" || e.PR <= 0 {
		return fmt.Errorf("recording history event: kind, repo and PR are required (got %q, %q, %d)", e.Kind, e.Repo, e.PR)
	}
	if (e.Kind == KindVerification) != (e.Verification != nil) {
		return fmt.Errorf("recording %s event for %s#%d: a verification record belongs to exactly the verification kind", e.Kind, e.Repo, e.PR)
	}
	var v Verification
	rows := "[]"
	if e.Verification != nil {
		v = *e.Verification
		b, err := json.Marshal(v.Rows)
		if err != nil {
			return fmt.Errorf("encoding the rows of %s#%d: %w", e.Repo, e.PR, err)
		}
		rows = string(b)
	}
	args := []any{e.Repo, e.PR, string(e.Kind), e.SHA, e.SignOffKey, e.Actor, e.Detail, e.DeliveryID, e.At.UnixMilli(),
		v.Verdict, v.BodySHA256, v.CommentURL, rows, v.Duration.Milliseconds(), v.APICalls,
		// Orders events recorded in the same millisecond (a recheck's
		// command line right after its verification) as they happened.
		e.At.UnixNano()}
	if e.Kind != KindVerification {
		// A retried job or a later verification seeing the same bypass
		// again reports what is already known: keep the first.
		_, err := s.db.Exec(ctx, insertEventSQL+` WHERE NOT EXISTS (SELECT 1 FROM verdict_event
			WHERE repo = $1 AND pr_number = $2 AND kind = $3 AND head_sha = $4 AND signoff_key = $5
			AND actor = $6 AND detail = $7 AND delivery_id = $8)`, args...)
		if err != nil {
			return fmt.Errorf("recording %s event for %s#%d: %w", e.Kind, e.Repo, e.PR, err)
		}
		return nil
	}
	return s.InTx(ctx, func(tx Execer) error {
		// One verification, one row: an attempt that published and then
		// died before its job was marked done is run again, and verifies
		// the same delivery's sign-off body on the same commit to the same
		// verdict. (Without a delivery, nothing tells two apart.)
		n, err := tx.Exec(ctx, insertEventSQL+` WHERE $8 = '' OR NOT EXISTS (SELECT 1 FROM verdict_event
			WHERE repo = $1 AND pr_number = $2 AND kind = $3 AND head_sha = $4 AND signoff_key = $5
			AND delivery_id = $8 AND verdict = $10 AND body_sha256 = $11)`, args...)
		if err != nil {
			return fmt.Errorf("recording %s event for %s#%d: %w", e.Kind, e.Repo, e.PR, err)
		}
		if n == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO verdict_audit
			(repo, pr_number, signoff_key, assessed_sha, verdict, comment_url, delivery_id, published_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			e.Repo, e.PR, e.SignOffKey, e.SHA, v.Verdict, v.CommentURL, e.DeliveryID, e.At.UnixMilli())
		if err != nil {
			return fmt.Errorf("recording verdict for %s#%d: %w", e.Repo, e.PR, err)
		}
		return nil
	})
}

// FirstAssessed returns the commit of the first verification of sign-off
// key whose body hashed to bodySHA256; ok is false when there was none.
func (s *Store) FirstAssessed(ctx context.Context, repo string, pr int, key, bodySHA256 string) (sha string, ok bool, err error) {
	row := s.db.QueryRow(ctx, `SELECT head_sha FROM verdict_event
		WHERE LOWER(repo) = LOWER($1) AND pr_number = $2 AND kind = $3 AND signoff_key = $4 AND body_sha256 = $5
		ORDER BY at, seq LIMIT 1`, repo, pr, string(KindVerification), key, bodySHA256)
	switch err := row.Scan(&sha); {
	case err == ErrNoRows:
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("reading the first verification of %s on %s#%d: %w", key, repo, pr, err)
	}
	return sha, true, nil
}

// History returns the events of one PR, newest first; limit > 0 keeps the
// newest limit. Repository names compare case-insensitively, as GitHub's.
func (s *Store) History(ctx context.Context, repo string, pr, limit int) ([]Event, error) {
	q := `SELECT repo, kind, head_sha, signoff_key, actor, detail, delivery_id, at,
		verdict, body_sha256, comment_url, rows_json, duration_ms, api_calls
		FROM verdict_event WHERE LOWER(repo) = LOWER($1) AND pr_number = $2
		ORDER BY at DESC, seq DESC, kind DESC, signoff_key, head_sha`
	args := []any{repo, pr}
	if limit > 0 {
		q += " LIMIT $3"
		args = append(args, limit)
	}
	var out []Event
	err := s.each(ctx, q, args, func(r Row) error {
		e := Event{PR: pr}
		var kind, rows string
		var at, ms int64
		var v Verification
		if err := r.Scan(&e.Repo, &kind, &e.SHA, &e.SignOffKey, &e.Actor, &e.Detail, &e.DeliveryID, &at,
			&v.Verdict, &v.BodySHA256, &v.CommentURL, &rows, &ms, &v.APICalls); err != nil {
			return err
		}
		e.Kind, e.At = EventKind(kind), time.UnixMilli(at).UTC()
		if e.Kind == KindVerification {
			if err := json.Unmarshal([]byte(rows), &v.Rows); err != nil {
				return fmt.Errorf("decoding the rows of a verification at %s: %w", e.At.Format(time.RFC3339), err)
			}
			v.Duration = time.Duration(ms) * time.Millisecond
			e.Verification = &v
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the history of %s#%d: %w", repo, pr, err)
	}
	return out, nil
}
