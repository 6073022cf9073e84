package ghsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/verdict-bot/verdict/checks"
)

// artifactIndex is the list of entry names of an artifact, cached so that a
// later verification can tell whether every wanted entry is cached.
type artifactIndex []string

func entryKey(id int64, name string) string { return fmt.Sprintf("artifact\x00%d\x00%s", id, name) }
func indexKey(id int64) string              { return fmt.Sprintf("artifact-index\x00%d", id) }

// ArtifactFiles downloads an artifact (unless every wanted entry is cached)
// and returns the wanted entries sorted by name.
func (s *Source) ArtifactFiles(ctx context.Context, a checks.Artifact, want func(name string) bool) ([]checks.ArtifactFile, error) {
	files, err := s.artifactFiles(ctx, a, want, true)
	s.noteTransient(err)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		what := fmt.Sprintf("%s/%s: artifact %s (%d), entry %s", s.owner, s.repo, a.Name, a.ID, f.Name)
		if err := s.book(ctx, entryKey(a.ID, f.Name), int64(len(f.Data))*artifactExpansion, what); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// artifactFiles is ArtifactFiles; asked says a check asked, so that the
// reads ahead its first download of a run starts (see PrefetchArtifacts)
// are started, and not for a read ahead itself.
func (s *Source) artifactFiles(ctx context.Context, a checks.Artifact, want func(name string) bool, asked bool) ([]checks.ArtifactFile, error) {
	what := fmt.Sprintf("%s/%s: artifact %s (%d)", s.owner, s.repo, a.Name, a.ID)
	if want == nil {
		want = func(string) bool { return true }
	}
	if a.Expired {
		return nil, fmt.Errorf("%s: %w", what, checks.ErrExpired)
	}
	if a.SizeBytes > s.o.Artifact.MaxArchiveBytes {
		return nil, fmt.Errorf("%s: archive is %d bytes, over the %d-byte limit: %w", what, a.SizeBytes, s.o.Artifact.MaxArchiveBytes, checks.ErrTooLarge)
	}
	if files, ok := s.cachedEntries(a.ID, want); ok {
		return files, s.hold(what, files)
	}
	if asked {
		s.readRunAhead(ctx, a)
	}
	// One download at a time per artifact: a concurrent caller usually
	// wants the same entries and finds them cached once the first is done.
	mu := s.artifactLock(a.ID)
	mu.Lock()
	defer mu.Unlock()
	if files, ok := s.cachedEntries(a.ID, want); ok {
		return files, s.hold(what, files)
	}
	names, files, err := s.fetchArtifact(ctx, a, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	c := s.cache()
	var size int64
	for _, n := range names {
		size += int64(len(n)) + 16
	}
	for _, f := range files {
		c.put(entryKey(a.ID, f.Name), f.Data, int64(len(f.Data)))
	}
	// The index goes in last, so it is only found when its entries were stored.
	c.put(indexKey(a.ID), artifactIndex(names), size)
	return files, nil
}

// hold charges entries read from the cache to the verification's budget;
// fresh entries were charged as they were decompressed.
func (s *Source) hold(what string, files []checks.ArtifactFile) error {
	var n int64
	for _, f := range files {
		n += int64(len(f.Data))
	}
	if !s.held.take(n) {
		return fmt.Errorf("%s: %w", what, s.overBudget())
	}
	return nil
}

func (s *Source) overBudget() error {
	return fmt.Errorf("this verification's artifact entries are over its %d-byte cap (Artifact.MaxVerificationBytes): %w",
		s.o.Artifact.MaxVerificationBytes, checks.ErrTooLarge)
}

// budget is a byte allowance shared by the concurrent reads of one
// verification, charged as bytes are produced, so its bound holds however
// many archives are decompressed at once.
type budget struct {
	mu   sync.Mutex
	left int64
}

// take charges n bytes, reporting false (and charging nothing) when fewer
// are left.
func (b *budget) take(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (s *Source) cache() *Cache {
	if s.o.Cache != nil {
		return s.o.Cache
	}
	return s.local
}

func (s *Source) artifactLock(id int64) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.artLocks == nil {
		s.artLocks = map[int64]*sync.Mutex{}
	}
	m, ok := s.artLocks[id]
	if !ok {
		m = &sync.Mutex{}
		s.artLocks[id] = m
	}
	return m
}

// cachedEntries answers from the cache when the artifact's index and every
// wanted entry are there.
func (s *Source) cachedEntries(id int64, want func(string) bool) ([]checks.ArtifactFile, bool) {
	c := s.cache()
	v, ok := c.get(indexKey(id))
	if !ok {
		return nil, false
	}
	var out []checks.ArtifactFile
	for _, name := range v.(artifactIndex) {
		if !want(name) {
			continue
		}
		d, ok := c.get(entryKey(id, name))
		if !ok {
			return nil, false
		}
		out = append(out, checks.ArtifactFile{Name: name, Data: d.([]byte)})
	}
	return out, true
}

// fetchArtifact downloads the archive to a temporary file (deleted before
// returning) and extracts the wanted entries.
func (s *Source) fetchArtifact(ctx context.Context, a checks.Artifact, want func(string) bool) ([]string, []checks.ArtifactFile, error) {
	select {
	case s.downloads <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, transient(nil, ctx.Err())
	}
	arc, err := s.download(ctx, a.ID)
	<-s.downloads
	if err != nil {
		return nil, nil, err
	}
	defer arc.close()
	names, files, err := readZip(arc.r, arc.size, s.o.Artifact, want, s.held)
	if errors.Is(err, errBudget) {
		err = s.overBudget()
	}
	return names, files, err
}

// memArchive is the largest archive (by its declared length) held in
// memory while it is read; larger ones, or ones of unknown length, go to
// a temporary file. Sweep result archives are a few kilobytes, and a
// temporary file costs more than their whole download.
const memArchive = 4 << 20

// archive is a downloaded archive, in memory or in a temporary file.
type archive struct {
	r    io.ReaderAt
	size int64
	file *os.File
}

func (a *archive) close() {
	if a.file != nil {
		a.file.Close()
		os.Remove(a.file.Name())
	}
}

// downloadAttempts bounds how often an archive download that broke off
// mid-stream is started again. Failures before the body are retried by the
// clients' transport; this covers a body too large to buffer there.
const downloadAttempts = 3

func (s *Source) download(ctx context.Context, id int64) (*archive, error) {
	for attempt := 1; ; attempt++ {
		arc, err := s.downloadOnce(ctx, id)
		var broke *brokenStream
		if !errors.As(err, &broke) || attempt == downloadAttempts || ctx.Err() != nil {
			return arc, err
		}
		select {
		case <-time.After(time.Duration(attempt) * s.o.downloadBackoff()):
		case <-ctx.Done():
			return nil, transient(nil, ctx.Err())
		}
	}
}

// brokenStream is an archive body that stopped before its end.
type brokenStream struct{ err error }

func (e *brokenStream) Error() string { return e.err.Error() }
func (e *brokenStream) Unwrap() error { return e.err }
func (o Options) downloadBackoff() time.Duration {
	if o.Retry.BaseDelay > 0 {
		return o.Retry.BaseDelay
	}
	return time.Second
}

// downloadOnce asks GitHub for the archive's short-lived URL (a fresh one
// each time: it expires within a minute) and streams the archive from it.
func (s *Source) downloadOnce(ctx context.Context, id int64) (*archive, error) {
	u, resp, err := s.gh.Actions.DownloadArtifact(ctx, s.owner, s.repo, id, 1)
	if err != nil {
		switch statusOf(resp) {
		case http.StatusGone:
			return nil, fmt.Errorf("download refused: %w", checks.ErrExpired)
		case http.StatusNotFound:
			return nil, fmt.Errorf("download: %w", checks.ErrNotFound)
		}
		return nil, apiErr("requesting the download URL", resp, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("download URL: %w", err)
	}
	hresp, err := s.o.DownloadClient.Do(req)
	if err != nil {
		return nil, transient(nil, fmt.Errorf("downloading: %w", err))
	}
	defer hresp.Body.Close()
	switch {
	case hresp.StatusCode == http.StatusGone:
		return nil, fmt.Errorf("downloading: %w", checks.ErrExpired)
	case hresp.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("downloading: %w", checks.ErrNotFound)
	case hresp.StatusCode != http.StatusOK:
		return nil, transient(hresp, fmt.Errorf("downloading: status %s", hresp.Status))
	}
	max := s.o.Artifact.MaxArchiveBytes
	if hresp.ContentLength > max {
		return nil, fmt.Errorf("archive is %d bytes, over the %d-byte limit: %w", hresp.ContentLength, max, checks.ErrTooLarge)
	}
	arc := &archive{}
	var dst io.Writer
	var buf *bytes.Buffer
	if hresp.ContentLength >= 0 && hresp.ContentLength <= memArchive {
		buf = bytes.NewBuffer(make([]byte, 0, hresp.ContentLength))
		dst = buf
	} else {
		if arc.file, err = os.CreateTemp(s.o.TempDir, "verdict-artifact-*.zip"); err != nil {
			return nil, fmt.Errorf("creating a temporary file: %w", err)
		}
		dst = arc.file
	}
	n, err := io.Copy(dst, io.LimitReader(hresp.Body, max+1))
	if err == nil && n > max {
		err = fmt.Errorf("archive is over the %d-byte limit: %w", max, checks.ErrTooLarge)
	} else if err == nil && hresp.ContentLength >= 0 && n != hresp.ContentLength {
		err = &brokenStream{transient(nil, fmt.Errorf("downloading: got %d of %d bytes: %w", n, hresp.ContentLength, io.ErrUnexpectedEOF))}
	} else if err != nil && ctx.Err() != nil {
		err = transient(nil, fmt.Errorf("downloading: %w", ctx.Err()))
	} else if err != nil {
		err = &brokenStream{transient(nil, fmt.Errorf("downloading: %w", err))}
	}
	if err != nil {
		arc.close()
		return nil, err
	}
	arc.size = n
	if buf != nil {
		arc.r = bytes.NewReader(buf.Bytes())
	} else {
		arc.r = arc.file
	}
	return arc, nil
}

// sortFiles orders extracted files by name for deterministic output.
func sortFiles(files []checks.ArtifactFile) {
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
}

var errUnsafeName = errors.New("unsafe entry name")
