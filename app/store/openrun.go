package store

import (
	"context"
	"fmt"
	"time"
)

// OpenRun is a check run Verdict opened in progress for one sign-off on
// one commit and has not completed yet.
type OpenRun struct {
	Repo         string // owner/name
	Key          string
	HeadSHA      string
	PR           int
	Installation int64
	OpenedAt     time.Time
}

// PutOpenRun records r (again: OpenedAt then moves to r's).
func (s *Store) PutOpenRun(ctx context.Context, r OpenRun) error {
	_, err := s.db.Exec(ctx, `INSERT INTO verdict_open_run (repo, signoff_key, head_sha, pr_number, installation_id, opened_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (repo, signoff_key, head_sha) DO UPDATE SET pr_number = EXCLUDED.pr_number,
		installation_id = EXCLUDED.installation_id, opened_at = EXCLUDED.opened_at`,
		r.Repo, r.Key, r.HeadSHA, r.PR, r.Installation, r.OpenedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("recording the open check run of %s on %s: %w", r.Key, r.HeadSHA, err)
	}
	return nil
}

// CloseOpenRun forgets the open check run of key on sha in repo (compared
// case-insensitively, as GitHub compares names).
func (s *Store) CloseOpenRun(ctx context.Context, repo, key, sha string) error {
	_, err := s.db.Exec(ctx, `DELETE FROM verdict_open_run WHERE LOWER(repo) = LOWER($1) AND signoff_key = $2 AND head_sha = $3`,
		repo, key, sha)
	if err != nil {
		return fmt.Errorf("forgetting the open check run of %s on %s: %w", key, sha, err)
	}
	return nil
}

// OpenRuns lists the open check runs opened before before, oldest first,
// at most limit.
func (s *Store) OpenRuns(ctx context.Context, before time.Time, limit int) ([]OpenRun, error) {
	var out []OpenRun
	err := s.each(ctx, `SELECT repo, signoff_key, head_sha, pr_number, installation_id, opened_at FROM verdict_open_run
		WHERE opened_at < $1 ORDER BY opened_at LIMIT $2`, []any{before.UnixMilli(), limit}, func(r Row) error {
		var o OpenRun
		var at int64
		if err := r.Scan(&o.Repo, &o.Key, &o.HeadSHA, &o.PR, &o.Installation, &at); err != nil {
			return err
		}
		o.OpenedAt = time.UnixMilli(at).UTC()
		out = append(out, o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing open check runs: %w", err)
	}
	return out, nil
}
