// Package snapshot pins what one pass over a pull request works from: the
// repository and its default branch, the PR with its head, base, base-tip
// and default-branch SHAs, the repository configuration read at the
// default branch (never the PR head: a PR cannot change its own rules), and
// the preset that configuration and the default branch select, with its
// settings read. A
// verification and the welcome reminder each take one snapshot, read
// everything else against it, and hand its PR to the checks.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/checks"
)

// Evidence is the GitHub-backed checks.Source of one pull request. It
// remembers the first transient failure any read met, so a verification
// can stop rather than judge from evidence that was merely unavailable,
// whatever a check made of the error it was handed.
type Evidence interface {
	checks.Source
	Transient() error
}

// GitHub is what taking a snapshot reads from GitHub: the repository, the
// pull request, branch tips, and the PR's evidence source (through which
// the configuration and the layout are read).
type GitHub interface {
	Repository(ctx context.Context, owner, repo string) (*github.Repository, error)
	PullRequest(ctx context.Context, owner, repo string, number int) (*github.PullRequest, error)
	BranchSHA(ctx context.Context, owner, repo, branch string) (string, error)
	Evidence(owner, repo string, number int) Evidence
}

// Snapshot is one pull request pinned.
type Snapshot struct {
	// RepoURL is the repository's web address.
	RepoURL string
	// PR is the checks' view of the pull request: identity, title, body,
	// state, labels and the pinned SHAs (head, base, base tip, default
	// branch), with the repository's settings set and its Source. The
	// sign-off and the review date are the verification's to fill in.
	PR     *checks.PR
	Config repoconfig.Config
	// Preset is the checklist the PR is verified with, its settings set
	// on PR.
	Preset *checks.Preset
	// Evidence is PR.Source.
	Evidence Evidence
}

// ConfigError is Take's error when the repository configuration on the
// default branch is invalid. It names the file version read, so that the PR
// can be told where the problems are. Retrying reads the same file.
type ConfigError struct {
	RepoURL string
	Branch  string
	SHA     string
	// Problems says what is wrong, line by line.
	Problems *repoconfig.Error
	err      error // as repoconfig reported it
}

func (e *ConfigError) Error() string { return e.err.Error() }
func (e *ConfigError) Unwrap() error { return e.err }

// Take pins pull request number of owner/repo and binds it to one of
// presets (repoconfig.Bind). A failure to read any part is returned
// (wrapped with what was being read) and no snapshot with it; an invalid
// configuration, or preset settings, is a *ConfigError.
//
// Reads go out as soon as what they need is known: the PR (which names the
// default branch, so the repository is not read for it), then both branch
// tips together and, beside them, the configuration and the files the
// presets' detection reads at the default branch's name when the evidence
// can read ahead (see configured); otherwise those together once its tip
// is known.
func Take(ctx context.Context, gh GitHub, presets []*checks.Preset, owner, name string, number int) (*Snapshot, error) {
	return TakeWith(ctx, gh, gh.Evidence(owner, name, number), presets, owner, name, number, nil)
}

// TakeWith is Take reading through src, an evidence source of this PR that
// the caller may already be reading other evidence through. pinned, when
// set, is called with the PR as soon as it is read, so that the caller can
// start the reads that need only its head.
func TakeWith(ctx context.Context, gh GitHub, src Evidence, presets []*checks.Preset, owner, name string, number int, pinned func(*github.PullRequest)) (*Snapshot, error) {
	pull, err := gh.PullRequest(ctx, owner, name, number)
	if err != nil {
		return nil, fmt.Errorf("reading PR #%d: %w", number, err)
	}
	if pinned != nil {
		pinned(pull)
	}
	def, repoURL := pull.GetBase().GetRepo().GetDefaultBranch(), pull.GetBase().GetRepo().GetHTMLURL()
	if def == "" {
		// A PR without its base repository (not GitHub's shape, but some
		// servers') leaves the default branch to the repository itself.
		r, err := gh.Repository(ctx, owner, name)
		if err != nil {
			return nil, fmt.Errorf("reading repository %s/%s: %w", owner, name, err)
		}
		def, repoURL = r.GetDefaultBranch(), r.GetHTMLURL()
	}
	base := pull.GetBase().GetRef()
	var baseTip string
	var baseErr error
	var wg sync.WaitGroup
	if base != def {
		wg.Add(1)
		go func() {
			defer wg.Done()
			baseTip, baseErr = gh.BranchSHA(ctx, owner, name, base)
		}()
	}
	defSHA, cfg, err := configured(ctx, gh, src, presets, def, repoURL, owner, name, marks(presets))
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if baseErr != nil {
		return nil, fmt.Errorf("reading base branch %s: %w", base, baseErr)
	}
	if base == def {
		baseTip = defSHA
	}
	labels := make([]string, 0, len(pull.Labels))
	for _, l := range pull.Labels {
		labels = append(labels, l.GetName())
	}
	pr := &checks.PR{
		Owner: owner, Repo: name, Number: number,
		Title: pull.GetTitle(), Body: pull.GetBody(),
		State: pull.GetState(), Draft: pull.GetDraft(),
		Author: pull.GetUser().GetLogin(), HTMLURL: pull.GetHTMLURL(),
		Labels: labels, ChangedFiles: pull.GetChangedFiles(),
		HeadSHA: pull.GetHead().GetSHA(), HeadRef: pull.GetHead().GetRef(),
		BaseRef: pull.GetBase().GetRef(), BaseSHA: pull.GetBase().GetSHA(),
		BaseTip:       baseTip,
		DefaultBranch: def, DefaultSHA: defSHA,
		Source: src,
	}
	s := &Snapshot{RepoURL: repoURL, PR: pr, Config: cfg, Evidence: src}
	if err := s.bind(ctx, presets); err != nil {
		return nil, err
	}
	return s, nil
}

// Release gives back what a verification's evidence source booked of the
// process's memory budget (ghsource.Memory), when it has such a budget.
// Call it once the reads through src are done.
func Release(src checks.Source) {
	if r, ok := src.(interface{ Release() }); ok {
		r.Release()
	}
}

// marks are the files the presets' detection reads, each once.
func marks(presets []*checks.Preset) []string {
	var out []string
	for _, p := range presets {
		for _, m := range p.Marks {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// bind chooses the snapshot's preset among presets and lets it read its
// settings (repoconfig.Bind). Invalid settings are a *ConfigError naming
// the configuration read; a failed detection read is returned wrapped.
func (s *Snapshot) bind(ctx context.Context, presets []*checks.Preset) error {
	p, err := repoconfig.Bind(ctx, presets, s.Config, s.PR)
	var invalid *repoconfig.Error
	if errors.As(err, &invalid) {
		return &ConfigError{RepoURL: s.RepoURL, Branch: s.PR.DefaultBranch, SHA: s.PR.DefaultSHA, Problems: invalid, err: err}
	}
	if err != nil {
		return fmt.Errorf("choosing the checklist preset: %w", err)
	}
	s.Preset = p
	return nil
}

// Configuration reads the repository configuration on the default branch,
// with the keys of presets (the served ones), without pinning a pull
// request (src is the PR's evidence source, through which the file is read).
func Configuration(ctx context.Context, gh GitHub, src Evidence, presets []*checks.Preset, owner, name string) (repoconfig.Config, error) {
	r, err := gh.Repository(ctx, owner, name)
	if err != nil {
		return repoconfig.Config{}, fmt.Errorf("reading repository %s/%s: %w", owner, name, err)
	}
	_, cfg, err := configured(ctx, gh, src, presets, r.GetDefaultBranch(), r.GetHTMLURL(), owner, name, nil)
	return cfg, err
}

// aheadReader is an evidence source that can read files at a branch by
// name while the branch's tip is read, and answer reads at the tip from
// them once told which commit it is (ghsource's; see its ReadAhead).
type aheadReader interface {
	ReadAhead(ctx context.Context, branch string, paths ...string)
	Pin(branch, sha string)
}

// configured pins the default branch's tip and reads the configuration
// there. The marks, which the presets' detection reads at the same commit
// unless the configuration names its preset, are read alongside it rather
// than after it, and all are read ahead at the branch while its tip is
// read, when src can.
func configured(ctx context.Context, gh GitHub, src checks.Source, presets []*checks.Preset, def, repoURL, owner, name string, marks []string) (string, repoconfig.Config, error) {
	ahead, _ := src.(aheadReader)
	if ahead != nil {
		ahead.ReadAhead(ctx, def, append([]string{repoconfig.Path}, marks...)...)
	}
	sha, err := gh.BranchSHA(ctx, owner, name, def)
	if err != nil {
		return "", repoconfig.Config{}, fmt.Errorf("reading default branch %s: %w", def, err)
	}
	if ahead != nil {
		ahead.Pin(def, sha)
	}
	var read sync.WaitGroup
	for _, m := range marks {
		read.Add(1)
		go func() {
			defer read.Done()
			src.ReadFile(ctx, sha, m) // memoized: detection reads it again
		}()
	}
	cfg, err := repoconfig.Load(ctx, src, sha, presets)
	if cfg.Preset == "" {
		read.Wait()
	}
	var invalid *repoconfig.Error
	if errors.As(err, &invalid) {
		return sha, cfg, &ConfigError{RepoURL: repoURL, Branch: def, SHA: sha, Problems: invalid, err: err}
	}
	if err != nil {
		return sha, cfg, err
	}
	return sha, cfg, nil
}
