-- The schema Verdict created before its tables were versioned (CREATE TABLE IF
-- NOT EXISTS at every start, no version table): the upgrade test starts here.
CREATE TABLE IF NOT EXISTS verdict_delivery (
	delivery_id TEXT PRIMARY KEY,
	event       TEXT NOT NULL,
	action      TEXT NOT NULL,
	repo        TEXT NOT NULL,
	pr_number   BIGINT NOT NULL,
	received_at BIGINT NOT NULL,
	outcome     TEXT NOT NULL,
	jobs        INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS verdict_delivery_received ON verdict_delivery (received_at);

-- The bodies of the deliveries logged: GitHub sends one body under one
-- delivery ID (a redelivery keeps it), so the same signed body under
-- another ID is a captured delivery replayed.
CREATE TABLE IF NOT EXISTS verdict_delivery_body (
	body_sha256 TEXT PRIMARY KEY,
	delivery_id TEXT NOT NULL,
	received_at BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS verdict_delivery_body_received ON verdict_delivery_body (received_at);

CREATE TABLE IF NOT EXISTS verdict_audit (
	repo         TEXT NOT NULL,
	pr_number    BIGINT NOT NULL,
	signoff_key  TEXT NOT NULL,
	assessed_sha TEXT NOT NULL,
	verdict      TEXT NOT NULL,
	comment_url  TEXT NOT NULL,
	delivery_id  TEXT NOT NULL,
	published_at BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS verdict_audit_pr ON verdict_audit (repo, pr_number, published_at);

CREATE TABLE IF NOT EXISTS verdict_generation (
	coalesce_key TEXT PRIMARY KEY,
	generation   BIGINT NOT NULL
);

-- The history of a PR: verifications (with their rows as JSON) and
-- the commands, bypasses, tamper marks and withdrawals around them.
CREATE TABLE IF NOT EXISTS verdict_event (
	repo        TEXT NOT NULL,
	pr_number   BIGINT NOT NULL,
	kind        TEXT NOT NULL,
	head_sha    TEXT NOT NULL,
	signoff_key TEXT NOT NULL,
	actor       TEXT NOT NULL,
	detail      TEXT NOT NULL,
	delivery_id TEXT NOT NULL,
	at          BIGINT NOT NULL,
	verdict     TEXT NOT NULL,
	body_sha256 TEXT NOT NULL,
	comment_url TEXT NOT NULL,
	rows_json   TEXT NOT NULL,
	duration_ms BIGINT NOT NULL,
	api_calls   INTEGER NOT NULL,
	seq         BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS verdict_event_pr ON verdict_event (LOWER(repo), pr_number, at);

-- The verification job of a coalescing key that has not begun
-- verifying, and the arguments it will verify with: later events for
-- the key replace args instead of adding jobs; the job claims (deletes)
-- the row when it begins.
CREATE TABLE IF NOT EXISTS verdict_pending_job (
	coalesce_key TEXT PRIMARY KEY,
	job_id       BIGINT NOT NULL,
	args         TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS verdict_signoff (
	repo         TEXT NOT NULL,
	signoff_key  TEXT NOT NULL,
	pr_number    BIGINT NOT NULL,
	author       TEXT NOT NULL,
	body_sha256  TEXT NOT NULL,
	signed_at    BIGINT NOT NULL,
	state        TEXT NOT NULL,
	editor       TEXT NOT NULL,
	state_at     BIGINT NOT NULL,
	assessed_sha TEXT NOT NULL,
	verdict      TEXT NOT NULL,
	comment_url  TEXT NOT NULL,
	PRIMARY KEY (repo, signoff_key)
);

CREATE INDEX IF NOT EXISTS verdict_signoff_pr ON verdict_signoff (repo, pr_number);

-- Each installation's write budget (a token bucket, see
-- ghclient.TokenBucket), shared by every replica.
CREATE TABLE IF NOT EXISTS verdict_write_budget (
	installation_id BIGINT PRIMARY KEY,
	tokens          DOUBLE PRECISION NOT NULL,
	at_ms           BIGINT NOT NULL
);
