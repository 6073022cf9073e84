package repo

import (
	"context"
	"fmt"
	"sync"

	"github.com/verdict-bot/verdict/checks"
)

// MaxReads bounds concurrent Source reads of one verification.
const MaxReads = 8

// defaultMaxFileBytes is the file cap when the settings set none.
const defaultMaxFileBytes = 8 << 20

// Reader reads repository files and directories for one verification: every
// caller asking for the same ref and path shares one Source call, at most
// MaxReads run at once, and files over the settings' MaxFileBytes are
// refused with ErrTooLarge.
type Reader struct {
	src      checks.Source
	maxBytes int64
	sem      chan struct{}

	mu    sync.Mutex
	files map[readKey]*readEntry[[]byte]
	dirs  map[readKey]*readEntry[[]checks.DirEntry]
}

type readKey struct{ ref, path string }

type readEntry[T any] struct {
	once sync.Once
	val  T
	err  error
}

// ReaderFact is the verification's Reader.
var ReaderFact = checks.NewFact("repository reader", nil, func(_ context.Context, pr *checks.PR) (*Reader, error) {
	max := int64(defaultMaxFileBytes)
	if s := SettingsParam.Get(pr); s != nil && s.MaxFileBytes > 0 {
		max = s.MaxFileBytes
	}
	return NewReader(pr.Source, max), nil
})

// NewReader reads through src, refusing files over maxBytes.
func NewReader(src checks.Source, maxBytes int64) *Reader {
	return &Reader{src: src, maxBytes: maxBytes, sem: make(chan struct{}, MaxReads),
		files: map[readKey]*readEntry[[]byte]{}, dirs: map[readKey]*readEntry[[]checks.DirEntry]{}}
}

func entry[T any](r *Reader, m map[readKey]*readEntry[T], k readKey) *readEntry[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := m[k]
	if !ok {
		e = &readEntry[T]{}
		m[k] = e
	}
	return e
}

// Read returns a file's bytes at ref.
func (r *Reader) Read(ctx context.Context, ref, path string) ([]byte, error) {
	e := entry(r, r.files, readKey{ref, path})
	e.once.Do(func() { e.val, e.err = r.read(ctx, ref, path) })
	return e.val, e.err
}

func (r *Reader) read(ctx context.Context, ref, path string) ([]byte, error) {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.sem }()
	b, err := r.src.ReadFile(ctx, ref, path)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %w", path, checks.Short(ref), err)
	}
	if r.maxBytes > 0 && int64(len(b)) > r.maxBytes {
		return nil, fmt.Errorf("reading %s at %s: %d bytes is over the %d-byte cap: %w", path, checks.Short(ref), len(b), r.maxBytes, checks.ErrTooLarge)
	}
	return b, nil
}

// List lists a directory at ref.
func (r *Reader) List(ctx context.Context, ref, dir string) ([]checks.DirEntry, error) {
	e := entry(r, r.dirs, readKey{ref, dir})
	e.once.Do(func() {
		e.val, e.err = r.src.ListDir(ctx, ref, dir)
		if e.err != nil {
			e.val, e.err = nil, fmt.Errorf("listing %s at %s: %w", dir, checks.Short(ref), e.err)
		}
	})
	return e.val, e.err
}

// ReadEach reads paths at ref concurrently (within the reader's bound) and
// calls f with each result; f may run concurrently for different i.
func (r *Reader) ReadEach(ctx context.Context, ref string, paths []string, f func(i int, data []byte, err error)) {
	Parallel(MaxReads, len(paths), func(i int) {
		b, err := r.Read(ctx, ref, paths[i])
		f(i, b, err)
	})
}

// Parallel runs f for every index with at most n running at once and
// waits: the readers of one verification fan out their reads with it.
func Parallel(n, count int, f func(i int)) {
	if count == 0 {
		return
	}
	if n > count {
		n = count
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < count; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
