-- Liveness that survives a dead host. A session-level advisory lock dies
-- with its session, but a session whose client vanished without a FIN (the
-- host died, or a proxy in between keeps its end open) lives on for hours.
-- Per-PR locks are therefore leases a live holder renews, and each process
-- stamps a heartbeat; times are the database server's clock in Unix
-- milliseconds, so replicas' clocks never compare.

-- +goose Up
CREATE TABLE IF NOT EXISTS verdict_lease (
	name       TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	expires_at BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS verdict_process (
	client_id TEXT PRIMARY KEY,
	seen_at   BIGINT NOT NULL
);
