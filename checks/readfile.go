package checks

import (
	"context"
	"fmt"
	"sync"
)

// csMaxReads bounds concurrent Source reads of one verification.
const csMaxReads = 8

// readAt reads a file at ref once per verification: every caller asking for
// the same ref and path shares one Source call. Files over
// Settings.MaxFileBytes are refused with ErrTooLarge.
func csRead(ctx context.Context, pr *PR, ref, path string) ([]byte, error) {
	return Memo(pr, "file\x00"+ref+"\x00"+path, func() ([]byte, error) {
		sem := csReadSem(pr)
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		defer func() { <-sem }()
		b, err := pr.Source.ReadFile(ctx, ref, path)
		if err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", path, Short(ref), err)
		}
		if max := csMaxFileBytes(pr); max > 0 && int64(len(b)) > max {
			return nil, fmt.Errorf("reading %s at %s: %d bytes is over the %d-byte cap: %w", path, Short(ref), len(b), max, ErrTooLarge)
		}
		return b, nil
	})
}

// listAt lists a directory at ref once per verification.
func csList(ctx context.Context, pr *PR, ref, dir string) ([]DirEntry, error) {
	return Memo(pr, "dir\x00"+ref+"\x00"+dir, func() ([]DirEntry, error) {
		es, err := pr.Source.ListDir(ctx, ref, dir)
		if err != nil {
			return nil, fmt.Errorf("listing %s at %s: %w", dir, Short(ref), err)
		}
		return es, nil
	})
}

func csReadSem(pr *PR) chan struct{} {
	s, _ := Memo(pr, "readsem", func() (chan struct{}, error) { return make(chan struct{}, csMaxReads), nil })
	return s
}

func csMaxFileBytes(pr *PR) int64 {
	if pr.Settings == nil || pr.Settings.MaxFileBytes <= 0 {
		return 8 << 20
	}
	return pr.Settings.MaxFileBytes
}

// forEach runs f for every index with at most n running at once and waits.
func csForEach(n, count int, f func(i int)) {
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
