// Package localverify verifies a change in a local git repository, offline:
// the same checks, per-repository settings, layout detection, scope gate and
// renderer as the App, reading files and the diff from git (app/gitsource)
// instead of GitHub. Evidence only GitHub has is unavailable, and the rows
// that need it say so; they are never PASS.
//
// This is the one place (with its sign-off rows in signoff.go) that wires
// the checks package for local use, so the history replay and the CLI share
// it.
package localverify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/app/scope"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Request names a change in a local repository.
type Request struct {
	// Base is the branch (or commit) the change merges into; Head is the
	// change ("HEAD" when empty). The change is compared with their merge
	// base, as GitHub compares a pull request.
	Base, Head string
	// Default is the trusted revision read for the repository's rules
	// (.github/verdict.yml, checklist template, MODELS.md, golden curves,
	// waivers, CODEOWNERS); empty means Base, the branch the change targets.
	Default string
	// Number is the pull request number (waiver file name); 0 when unknown.
	Number int
	// Owner and Repo name the repository in links and in claims about its
	// runs; empty means the origin remote's when it is on github.com.
	Owner, Repo string
	// Title and Body stand for the PR's; empty means the head commit's
	// subject and body.
	Title, Body string
	// SignOff is the body of a sign-off; nil means none was given.
	SignOff *string
	// Signer is the sign-off's author; empty means its "Signed:" line.
	Signer string
	// ReviewDate fixes "today"; zero means now (UTC).
	ReviewDate time.Time
	// Presets are the checklists served, in the order detection tries
	// them (checks.Choose).
	Presets []*checks.Preset
	// Preset, when set, names the preset to verify with over what the
	// repository's configuration names or detection finds (a replay of a
	// history older than the repository's checklist file).
	Preset string
}

// Change is a change ready to verify.
type Change struct {
	PR     *checks.PR
	Config repoconfig.Config
	Source *gitsource.Change
	preset *checks.Preset
	track  *tracker
	signed bool
}

// Prepare pins the change's commits, reads the repository's settings at the
// trusted revision, chooses the preset and builds what the checks receive.
func Prepare(ctx context.Context, repo *gitsource.Repo, req Request) (*Change, error) {
	if req.Base == "" {
		return nil, errors.New("a base revision is required")
	}

	if req.Head == "" {
		req.Head = "HEAD"
	}
	if req.Default == "" {
		req.Default = req.Base
	}
	if req.Owner == "" || req.Repo == "" {
		req.Owner, req.Repo = repo.GitHubName(ctx)
	}
	baseTip, err := repo.Resolve(ctx, req.Base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	head, err := repo.Resolve(ctx, req.Head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	def, err := repo.Resolve(ctx, req.Default)
	if err != nil {
		return nil, fmt.Errorf("default revision: %w", err)
	}
	mergeBase, err := repo.MergeBase(ctx, baseTip, head)
	if err != nil {
		return nil, err
	}
	headCommit, err := repo.Commit(ctx, head)
	if err != nil {
		return nil, err
	}
	git := repo.Change(mergeBase, head)
	src := newTracker(git)

	cfg, err := repoconfig.Load(ctx, src, def, req.Presets)
	if err != nil {
		return nil, err
	}
	files, err := src.Files(ctx)
	if err != nil {
		return nil, err
	}
	title, body := req.Title, req.Body
	if title == "" {
		title = headCommit.Subject()
	}
	if body == "" {
		body = headCommit.Body()
	}
	// The review day is the UTC day (RULES.md): a commit dated 22:46 -0400
	// on Aug 3 was made on Aug 4.
	reviewDate := req.ReviewDate.UTC()
	if req.ReviewDate.IsZero() {
		reviewDate = time.Now().UTC()
	}
	pr := &checks.PR{
		Owner: req.Owner, Repo: req.Repo, Number: req.Number,
		Title: title, Body: body, State: "open",
		ChangedFiles: len(files),
		HeadSHA:      head, HeadRef: branchName(req.Head),
		BaseRef: branchName(req.Base), BaseSHA: mergeBase, BaseTip: baseTip,
		DefaultBranch: branchName(req.Default), DefaultSHA: def,
		ReviewDate: time.Date(reviewDate.Year(), reviewDate.Month(), reviewDate.Day(), 0, 0, 0, 0, time.UTC),
		Source:     src,
	}
	if req.Preset != "" {
		cfg.Preset = req.Preset
	}
	preset, err := repoconfig.Bind(ctx, req.Presets, cfg, pr)
	if err != nil {
		return nil, err
	}
	c := &Change{PR: pr, Config: cfg, Source: git, preset: preset, track: src}
	if req.SignOff != nil {
		c.SetSignOff(*req.SignOff, req.Signer)
	}
	return c, nil
}

var loginRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}$`)

// branchName is rev when it looks like a branch name rather than a commit
// expression, else "".
func branchName(rev string) string {
	if strings.ContainsAny(rev, "~^:@{ ") || rev == "HEAD" || fullHex(rev) {
		return ""
	}
	return strings.TrimPrefix(strings.TrimPrefix(rev, "refs/heads/"), "origin/")
}

func fullHex(s string) bool {
	if len(s) < 7 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// SetSignOff makes body the assessed sign-off, written by signer (its
// "Signed:" line when signer is empty).
func (c *Change) SetSignOff(body, signer string) {
	so := signoff.Parse(body)
	so.Key, so.Kind = render.LocalKey, "local sign-off"
	so.Author = strings.TrimPrefix(strings.TrimSpace(signer), "@")
	if so.Author == "" {
		so.Author = strings.TrimPrefix(so.Signed, "@")
	}
	c.PR.SignOff, c.signed = so, true
}

// Outcome is the result of one local verification.
type Outcome struct {
	// Scope is the scope gate's answer: with Required false the App would
	// not verify the change at all.
	Scope   scope.Scope
	Verdict render.Verdict
	// Refused lists, per row, the GitHub-only evidence it asked for
	// (Source method names, sorted).
	Refused map[int][]string
	// NeedsGitHub are the rows that could not decide without GitHub-only
	// evidence (Check 0 decides without CODEOWNERS diagnostics and team
	// membership).
	NeedsGitHub map[int]bool
	// PassedAnyway are the rows whose check passed although it was refused
	// evidence; the verdict shows them as "could not be verified".
	PassedAnyway []int
}

// Verify applies the scope gate and, when a sign-off is required, runs the
// checks and decides. A change whose every path is owned by the core team
// needs no sign-off and is left alone, as the App would leave it; force
// runs the checks anyway (the history replay measures every change).
func (c *Change) Verify(ctx context.Context, force bool) (Outcome, error) {
	sc, err := scope.Of(ctx, c.preset, c.PR)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Scope: sc}
	if !sc.Required && !force {
		return out, nil
	}
	reg, err := registry(c.preset, c.track, c.signed)
	if err != nil {
		return Outcome{}, err
	}
	rows := checks.Run(ctx, reg, c.PR, c.Config.Enabled)
	for i := range rows {
		rows[i].Result.Reason.ZH = strings.ReplaceAll(rows[i].Result.Reason.ZH, gitsource.Unavailable, gitsource.UnavailableZH)
	}
	author := c.PR.SignOff.Author
	if !loginRE.MatchString(author) {
		author = "" // a placeholder Signed: line: nobody to mention
	}
	out.Verdict = render.Verdict{
		Key:        render.LocalKey,
		Author:     author,
		HeadSHA:    c.PR.HeadSHA,
		Preset:     c.preset,
		Rows:       rows,
		Overall:    checks.Decide(rows),
		Escalation: c.preset.EscalationOf(c.PR),
	}
	if keys, ok := c.preset.AffectedOf(c.PR); ok {
		out.Verdict.AffectedConfigs = keys
	}
	out.Refused, out.NeedsGitHub = map[int][]string{}, map[int]bool{}
	for _, r := range rows {
		ms, errs := c.track.refused(r.Number)
		if len(ms) > 0 {
			out.Refused[r.Number] = ms
		}
		if len(blocking(ms, errs)) > 0 {
			out.NeedsGitHub[r.Number] = true
		}
		if c.track.passedAnyway[r.Number] {
			out.PassedAnyway = append(out.PassedAnyway, r.Number)
		}
	}
	return out, nil
}
