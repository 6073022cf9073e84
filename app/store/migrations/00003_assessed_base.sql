-- The base commit a sign-off's last verdict read its rules at (the base
-- branch's tip then), so that a merge group built on the same commit can
-- rely on the verdict, and one built on another re-verifies. Empty for
-- verdicts published before this migration: they re-verify.

-- +goose Up
ALTER TABLE verdict_signoff ADD COLUMN assessed_base TEXT NOT NULL DEFAULT '';
