package main

import (
	"log/slog"

	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
)

// evidenceCacheBytes bounds immutable evidence (files by commit SHA,
// artifact contents by ID) kept across verifications.
const evidenceCacheBytes = 256 << 20

// newVerifier wires the verification pipeline shared by serve and check.
func newVerifier(logger *slog.Logger, opts ghsource.Options, rec verify.Recorder, botLogins []string) *verify.Verifier {
	if opts.Cache == nil {
		opts.Cache = ghsource.NewCache(evidenceCacheBytes)
	}
	return &verify.Verifier{
		Registry:      checks.InferenceX(),
		SourceOptions: opts,
		Publisher:     publish.Verifier{},
		Recorder:      rec,
		BotLogins:     botLogins,
		Logger:        logger,
	}
}
