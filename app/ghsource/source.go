// Package ghsource is the GitHub-backed checks.Source for one pull request.
// It paginates every list, memoizes every answer for the verification it
// serves (concurrent identical calls share one request), keeps immutable
// evidence (file contents at a commit SHA, extracted artifact entries) in a
// byte-bounded LRU cache shared between verifications, and reads artifact
// archives without trusting them.
package ghsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// Options tune a Source. Zero values take the defaults in parentheses.
type Options struct {
	// UpstreamClient reads upstream pull requests when the installation
	// client is refused (401, 403, 404): a token or unauthenticated client.
	UpstreamClient *github.Client
	// PageClient fetches published documentation pages (retried like
	// GitHub reads, 20 s in all, at most 5 redirects).
	PageClient *http.Client
	// DownloadClient downloads artifact archives from the short-lived URL
	// GitHub redirects to; it must not add a GitHub token. The default
	// retries like the GitHub client and gives up on a download that stops
	// moving, not on a slow one (see ghclient.RetryOptions).
	DownloadClient *http.Client
	// Retry tunes the default PageClient and DownloadClient.
	Retry ghclient.RetryOptions
	// Cache holds immutable evidence across verifications; share one
	// between Sources. Nil disables cross-verification caching.
	Cache *Cache
	// Memory is the process's budget for what verifications build from
	// large reads; nil books nothing.
	Memory *Memory
	// TempDir receives artifact downloads (os.TempDir()).
	TempDir string

	MaxFileBytes int64 // ReadFile cap (8 MiB)
	MaxPageBytes int64 // FetchPage cap (2 MiB)
	// MaxWorkflowRuns bounds WorkflowRuns pagination (1000).
	MaxWorkflowRuns int
	// ArtifactDownloads bounds the archives one Source downloads at once
	// (16): enough for every artifact a sweep run's checks want together.
	ArtifactDownloads int
	Artifact          ArtifactLimits
}

// ArtifactLimits bound artifact reading.
type ArtifactLimits struct {
	MaxArchiveBytes int64 // compressed download (2 GiB)
	MaxEntries      int   // entries in the archive (20000)
	MaxEntryBytes   int64 // uncompressed bytes of one wanted entry (64 MiB)
	MaxTotalBytes   int64 // uncompressed bytes of all wanted entries (256 MiB)
	// MaxVerificationBytes bounds the uncompressed bytes of wanted entries
	// one verification holds, across all the artifacts it reads (24 MiB).
	// The other limits are per archive: nine archives each under them
	// once took one verification to 1.5 GB. Sweep result entries are
	// kilobytes; the cap leaves room for the JSON decoding that follows.
	MaxVerificationBytes int64
}

func (o Options) withDefaults() Options {
	if o.PageClient == nil {
		t := ghclient.NewTransport(nil, o.Retry)
		t.Name = "(documentation page)"
		o.PageClient = &http.Client{Transport: t, Timeout: 20 * time.Second, CheckRedirect: limitRedirects}
	}
	if o.DownloadClient == nil {
		o.DownloadClient = NewDownloadClient(o.Retry)
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 8 << 20
	}
	if o.MaxPageBytes <= 0 {
		o.MaxPageBytes = 2 << 20
	}
	if o.MaxWorkflowRuns <= 0 {
		o.MaxWorkflowRuns = 1000
	}
	if o.ArtifactDownloads <= 0 {
		o.ArtifactDownloads = 16
	}
	a := &o.Artifact
	if a.MaxArchiveBytes <= 0 {
		a.MaxArchiveBytes = 2 << 30
	}
	if a.MaxEntries <= 0 {
		a.MaxEntries = 20000
	}
	if a.MaxEntryBytes <= 0 {
		a.MaxEntryBytes = 64 << 20
	}
	if a.MaxTotalBytes <= 0 {
		a.MaxTotalBytes = 256 << 20
	}
	if a.MaxVerificationBytes <= 0 {
		a.MaxVerificationBytes = 24 << 20
	}
	return o
}

// NewDownloadClient returns the client for artifact archives: the
// retrying transport without a token, metered under one endpoint name
// (storage URLs are unique per download).
func NewDownloadClient(o ghclient.RetryOptions) *http.Client {
	t := ghclient.NewTransport(nil, o)
	t.Name = "(artifact storage)"
	return &http.Client{Transport: t}
}

func limitRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing redirect to %s URL", req.URL.Scheme)
	}
	return nil
}

// Source is the GitHub-backed checks.Source for one pull request. It is
// safe for concurrent use.
type Source struct {
	gh          *github.Client
	owner, repo string
	number      int
	o           Options

	mu       sync.Mutex
	failed   error // the first transient failure (see Transient)
	flights  map[string]*flight
	artLocks map[int64]*sync.Mutex
	// downloads holds a token per archive being downloaded.
	downloads chan struct{}
	// local caches artifact entries for this verification when no shared
	// Cache is configured.
	local *Cache
	// held is what this verification's artifact entries may still take
	// (Artifact.MaxVerificationBytes).
	held *budget
	// pinned names the branch each commit was read as; trees holds the git
	// trees read; unconfirmed the reads ahead they have yet to confirm, by
	// commit (see ReadAhead).
	pinned      map[string]string
	trees       map[string]*commitTree
	unconfirmed map[string][]aheadRead
	// pick chooses the artifacts of a run to read ahead, runsAhead the
	// runs whose reads ahead were started (see PrefetchArtifacts).
	pick      func([]checks.Artifact) map[int64]func(string) bool
	runsAhead map[int64]bool
	// booked is what this verification holds of Options.Memory.
	booked booked
}

// New returns the Source for owner/repo#number. One Source serves one
// verification; create a new one for the next (share Options.Cache).
func New(client *github.Client, owner, repo string, number int, opts Options) *Source {
	o := opts.withDefaults()
	s := &Source{gh: client, owner: owner, repo: repo, number: number, o: o, flights: map[string]*flight{},
		downloads: make(chan struct{}, o.ArtifactDownloads), held: &budget{left: o.Artifact.MaxVerificationBytes}}
	if o.Cache == nil {
		s.local = NewCache(o.Artifact.MaxVerificationBytes)
	}
	return s
}

var _ checks.Source = (*Source)(nil)

type flight struct {
	done chan struct{}
	val  any
	err  error
}

// do runs f once per key for this Source. Concurrent callers wait for the
// first one and share its answer; later callers get the memoized answer.
// Cancellation is not memoized, so a later call with a live context retries.
func do[T any](s *Source, key string, f func() (T, error)) (T, error) {
	v, err := flown(s, key, f)
	s.noteTransient(err)
	return v, err
}

// flown is do without noting a transient failure: a read made ahead of
// its askers (see ahead.go) is nobody's evidence until one of them asks,
// and then do notes the memoized failure for that asker.
func flown[T any](s *Source, key string, f func() (T, error)) (T, error) {
	fl, first := s.board(key)
	if first {
		fly(s, key, fl, f)
	} else {
		<-fl.done
	}
	v, _ := fl.val.(T)
	return v, fl.err
}

// ahead starts f as the flight of key, unless there is one, and returns
// at once: the flight is on the board before ahead returns, so a later
// asker of key waits for it rather than starting another.
func ahead[T any](s *Source, key string, f func() (T, error)) {
	if fl, first := s.board(key); first {
		go fly(s, key, fl, f)
	}
}

// board returns the flight of key, adding one when there is none (first).
func (s *Source) board(key string) (fl *flight, first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fl, ok := s.flights[key]
	if !ok {
		fl = &flight{done: make(chan struct{})}
		s.flights[key] = fl
	}
	return fl, !ok
}

// fly runs f as flight fl of key. Cancellation is not memoized.
func fly[T any](s *Source, key string, fl *flight, f func() (T, error)) {
	func() {
		defer close(fl.done)
		defer func() {
			if p := recover(); p != nil {
				fl.err = fmt.Errorf("%s: panic: %v", key, p)
			}
		}()
		fl.val, fl.err = f()
	}()
	if errors.Is(fl.err, context.Canceled) || errors.Is(fl.err, context.DeadlineExceeded) {
		s.mu.Lock()
		delete(s.flights, key)
		s.mu.Unlock()
	}
}

// apiErr wraps err from a GitHub call with the sentinel its status means,
// or marks it transient (see transient).
func apiErr(what string, resp *github.Response, err error) error {
	if err == nil {
		return nil
	}
	status := statusOf(resp)
	var rle *github.RateLimitError
	var arle *github.AbuseRateLimitError
	if errors.As(err, &rle) || errors.As(err, &arle) {
		return transient(rawResp(resp), fmt.Errorf("%s: GitHub rate limit: %w", what, err))
	}
	if t := transient(rawResp(resp), err); retry.IsTransient(t) {
		return fmt.Errorf("%s: %w", what, t)
	}
	var sentinel error
	switch status {
	case http.StatusNotFound:
		sentinel = checks.ErrNotFound
	case http.StatusGone:
		sentinel = checks.ErrExpired
	case http.StatusUnauthorized, http.StatusForbidden:
		sentinel = checks.ErrForbidden
	}
	if sentinel != nil {
		return fmt.Errorf("%s: %w: %w", what, sentinel, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func rawResp(resp *github.Response) *http.Response {
	if resp == nil {
		return nil
	}
	return resp.Response
}

func statusOf(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// pageReads bounds the pages of one listing read at once.
const pageReads = 16

// paginate reads a listing: page 1, then, once its Link header says how
// many pages there are, every other page at once (at most pageReads at a
// time), up to max items; a server that names no last page is followed one
// next link at a time. The items keep GitHub's order.
func paginate[T any](ctx context.Context, max int, list func(opt github.ListOptions) ([]T, *github.Response, error)) ([]T, *github.Response, error) {
	opt := github.ListOptions{PerPage: 100, Page: 1}
	items, resp, err := list(opt)
	if err != nil {
		return nil, resp, err
	}
	all := items
	done := func() bool { return resp == nil || resp.NextPage == 0 || (max > 0 && len(all) >= max) }
	if !done() && resp.LastPage > resp.NextPage-1 {
		last := resp.LastPage
		if max > 0 {
			last = min(last, (max+opt.PerPage-1)/opt.PerPage)
		}
		pages := make([][]T, last+1)
		errs := make([]error, last+1)
		resps := make([]*github.Response, last+1)
		sem := make(chan struct{}, pageReads)
		var wg sync.WaitGroup
		for pg := resp.NextPage; pg <= last; pg++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				o := opt
				o.Page = pg
				pages[pg], resps[pg], errs[pg] = list(o)
			}()
		}
		wg.Wait()
		for pg := resp.NextPage; pg <= last; pg++ {
			if errs[pg] != nil {
				return nil, resps[pg], errs[pg]
			}
			all = append(all, pages[pg]...)
		}
		resp = resps[last]
	}
	for !done() {
		if err := ctx.Err(); err != nil {
			return nil, resp, err
		}
		opt.Page = resp.NextPage
		items, resp, err = list(opt)
		if err != nil {
			return nil, resp, err
		}
		all = append(all, items...)
	}
	if max > 0 && len(all) > max {
		all = all[:max]
	}
	return all, resp, nil
}
