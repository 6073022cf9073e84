-- The check runs Verdict opened (in progress) and has not completed yet, so
-- that one left open by an attempt that was cut, superseded or lost can be
-- found and completed when no verification of its PR is pending.

-- +goose Up
CREATE TABLE IF NOT EXISTS verdict_open_run (
	repo            TEXT NOT NULL,
	signoff_key     TEXT NOT NULL,
	head_sha        TEXT NOT NULL,
	pr_number       BIGINT NOT NULL,
	installation_id BIGINT NOT NULL,
	opened_at       BIGINT NOT NULL,
	PRIMARY KEY (repo, signoff_key, head_sha)
);
