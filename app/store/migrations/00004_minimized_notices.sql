-- Verdict's own notices other than verdicts (the invalid-configuration
-- comment) that it hid as outdated once they no longer held, by GraphQL node
-- ID, so that a redelivery or a restart hides nothing twice and a notice
-- that holds again is shown again.

-- +goose Up
CREATE TABLE IF NOT EXISTS verdict_minimized_notice (
	node_id      TEXT PRIMARY KEY,
	repo         TEXT NOT NULL,
	pr_number    BIGINT NOT NULL,
	minimized_at BIGINT NOT NULL
);
