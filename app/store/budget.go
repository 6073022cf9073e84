package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// reserveWriteSQL books one write of an installation in one statement, so
// that replicas booking at once each get their own slot: tokens refill at
// $4 a millisecond up to $3 since the last booking (never backwards: a
// replica whose clock runs behind refills nothing), and one is taken.
const reserveWriteSQL = `INSERT INTO verdict_write_budget (installation_id, tokens, at_ms)
	VALUES (CAST($1 AS BIGINT), CAST($3 AS DOUBLE PRECISION) - 1, CAST($2 AS BIGINT))
	ON CONFLICT (installation_id) DO UPDATE SET
		tokens = LEAST(CAST($3 AS DOUBLE PRECISION),
			verdict_write_budget.tokens + (GREATEST(CAST($2 AS BIGINT), verdict_write_budget.at_ms) - verdict_write_budget.at_ms) * CAST($4 AS DOUBLE PRECISION)) - 1,
		at_ms = GREATEST(CAST($2 AS BIGINT), verdict_write_budget.at_ms)
	RETURNING tokens`

// ReserveWrite books one content-creating request of installation at now
// against a token bucket of rate writes a second and burst, shared by every
// process on the database, and returns how long the caller must wait
// before sending it.
func (s *Store) ReserveWrite(ctx context.Context, installation int64, now time.Time, rate, burst float64) (time.Duration, error) {
	if rate <= 0 || burst < 1 {
		return 0, fmt.Errorf("write budget: rate %v and burst %v must be positive (burst at least 1)", rate, burst)
	}
	q := reserveWriteSQL
	if s.dialect != Postgres {
		// SQLite's two-argument min and max are LEAST and GREATEST.
		q = strings.NewReplacer("LEAST(", "min(", "GREATEST(", "max(").Replace(q)
	}
	var tokens float64
	if err := s.db.QueryRow(ctx, q, installation, now.UnixMilli(), burst, rate/1000).Scan(&tokens); err != nil {
		return 0, fmt.Errorf("booking a write of installation %d: %w", installation, err)
	}
	if tokens >= 0 {
		return 0, nil
	}
	return time.Duration(-tokens / rate * float64(time.Second)), nil
}
