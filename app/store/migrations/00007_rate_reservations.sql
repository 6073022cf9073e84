-- The installations' primary rate limits as shared by every process: the
-- newest view any of them had of an installation's limit (GitHub counts it
-- per installation, whichever replica calls) and the calls each running
-- verification set aside of it, so that replicas admitting at once cannot
-- overdraw it together. Times are Unix milliseconds.

-- +goose Up
CREATE TABLE IF NOT EXISTS verdict_rate_seen (
	installation_id BIGINT PRIMARY KEY,
	remaining       BIGINT NOT NULL,
	reset_ms        BIGINT NOT NULL,
	seen_ms         BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS verdict_rate_reservation (
	id              TEXT PRIMARY KEY,
	installation_id BIGINT NOT NULL,
	calls           BIGINT NOT NULL,
	expires_ms      BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS verdict_rate_reservation_installation ON verdict_rate_reservation (installation_id);
