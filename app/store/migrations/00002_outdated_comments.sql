-- Minimizing superseded verdict comments: the GraphQL node ID of each
-- sign-off's verdict comment (the handle minimizeComment takes) and when it
-- was minimized as outdated (0: shown). A comment posted anew gets a new
-- node ID and starts shown.

-- +goose Up
ALTER TABLE verdict_signoff ADD COLUMN comment_node_id TEXT NOT NULL DEFAULT '';
ALTER TABLE verdict_signoff ADD COLUMN minimized_at BIGINT NOT NULL DEFAULT 0;
