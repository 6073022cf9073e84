package ghsource

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// ReadZip reads an artifact archive without trusting it. It refuses archives
// with more than lim.MaxEntries entries (checked from the end record before
// the directory is parsed), entry names that are absolute, contain "..",
// backslashes or NUL, and duplicate names. It decompresses only the entries
// want accepts, counting the bytes actually produced (never the sizes the
// headers claim) against lim.MaxEntryBytes and lim.MaxTotalBytes. It returns
// every entry name (sorted, directories excluded) and the wanted files
// (sorted). Corrupt input is checks.ErrMalformed, limits checks.ErrTooLarge.
func ReadZip(r io.ReaderAt, size int64, lim ArtifactLimits, want func(string) bool) ([]string, []checks.ArtifactFile, error) {
	return readZip(r, size, lim, want, nil)
}

// errBudget is a verification's allowance exhausted (see budget).
var errBudget = errors.New("verification budget exhausted")

// readZip is ReadZip charging what it decompresses to held (nil: no
// allowance beyond lim).
func readZip(r io.ReaderAt, size int64, lim ArtifactLimits, want func(string) bool, held *budget) ([]string, []checks.ArtifactFile, error) {
	if n, ok := declaredEntries(r, size); ok && n > uint64(lim.MaxEntries) {
		return nil, nil, fmt.Errorf("archive declares %d entries, over the %d limit: %w", n, lim.MaxEntries, checks.ErrTooLarge)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the archive: %w: %w", checks.ErrMalformed, err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, nil, fmt.Errorf("archive has %d entries, over the %d limit: %w", len(zr.File), lim.MaxEntries, checks.ErrTooLarge)
	}
	seen := make(map[string]bool, len(zr.File))
	var names []string
	var out []checks.ArtifactFile
	var total int64
	for _, f := range zr.File {
		name := f.Name
		if err := checkName(name); err != nil {
			return nil, nil, fmt.Errorf("entry %q: %w: %w", name, checks.ErrMalformed, err)
		}
		if strings.HasSuffix(name, "/") {
			continue
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("entry %q appears twice: %w", name, checks.ErrMalformed)
		}
		seen[name] = true
		names = append(names, name)
		if !want(name) {
			continue
		}
		data, err := readEntry(f, lim.MaxEntryBytes, lim.MaxTotalBytes-total, held)
		if errors.Is(err, errBudget) {
			return nil, nil, err
		}
		if err != nil {
			return nil, nil, fmt.Errorf("entry %q: %w", name, err)
		}
		total += int64(len(data))
		out = append(out, checks.ArtifactFile{Name: name, Data: data})
	}
	sort.Strings(names)
	sortFiles(out)
	return names, out, nil
}

// readEntry decompresses one entry, stopping one byte past the tighter of
// the two limits so that an entry that lies about its size is caught by
// what it actually produces.
func readEntry(f *zip.File, maxEntry, remaining int64, held *budget) ([]byte, error) {
	if remaining <= 0 {
		return nil, fmt.Errorf("wanted entries exceed the total size limit: %w", checks.ErrTooLarge)
	}
	limit := min(maxEntry, remaining)
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("opening: %w: %w", checks.ErrMalformed, err)
	}
	defer rc.Close()
	// Preallocate from the header only up to a small bound: headers lie.
	prealloc := int64(1 << 20)
	if f.UncompressedSize64 < uint64(prealloc) {
		prealloc = int64(f.UncompressedSize64)
	}
	buf := make([]byte, 0, min(prealloc, limit)+1)
	w := &capWriter{buf: buf, max: limit, held: held}
	_, err = io.Copy(w, rc)
	switch {
	case errors.Is(err, errBudget):
		return nil, err
	case errors.Is(err, errCap) && limit == maxEntry:
		return nil, fmt.Errorf("over the %d-byte entry limit: %w", maxEntry, checks.ErrTooLarge)
	case errors.Is(err, errCap):
		return nil, fmt.Errorf("wanted entries exceed the total size limit: %w", checks.ErrTooLarge)
	case err != nil:
		return nil, fmt.Errorf("decompressing: %w: %w", checks.ErrMalformed, err)
	}
	return w.buf, nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", errUnsafeName)
	case strings.ContainsAny(name, "\\\x00"):
		return fmt.Errorf("%w: backslash or NUL", errUnsafeName)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("%w: absolute path", errUnsafeName)
	case len(name) >= 2 && name[1] == ':':
		return fmt.Errorf("%w: drive letter", errUnsafeName)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return fmt.Errorf("%w: parent directory", errUnsafeName)
		}
	}
	return nil
}

// declaredEntries reads the entry count from the end-of-central-directory
// record (or its zip64 form) so that a hostile archive cannot make the zip
// reader allocate millions of headers. ok is false when no record is found;
// zip.NewReader then reports the archive as malformed.
func declaredEntries(r io.ReaderAt, size int64) (uint64, bool) {
	const eocdLen, maxComment = 22, 65535
	tail := min(size, eocdLen+maxComment)
	if tail < eocdLen {
		return 0, false
	}
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil && err != io.EOF {
		return 0, false
	}
	for i := len(buf) - eocdLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(buf[i:]) != 0x06054b50 {
			continue
		}
		n := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
		if n != 0xffff {
			return n, true
		}
		// zip64: the locator sits just before the end record.
		loc := size - tail + int64(i) - 20
		if loc < 0 {
			return n, true
		}
		lb := make([]byte, 20)
		if _, err := r.ReadAt(lb, loc); err != nil || binary.LittleEndian.Uint32(lb) != 0x07064b50 {
			return n, true
		}
		off := int64(binary.LittleEndian.Uint64(lb[8:]))
		rec := make([]byte, 56)
		if off < 0 || off > size-56 {
			return 0, false
		}
		if _, err := r.ReadAt(rec, off); err != nil || binary.LittleEndian.Uint32(rec) != 0x06064b50 {
			return 0, false
		}
		return binary.LittleEndian.Uint64(rec[32:]), true
	}
	return 0, false
}
