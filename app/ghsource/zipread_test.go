package ghsource

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/checks"
)

type entry struct {
	name string
	data []byte
}

func makeZip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lyingZip stores data deflated but declares declared bytes uncompressed.
func lyingZip(t testing.TB, name string, data []byte, declared uint64) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(data),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: declared})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	return buf.Bytes()
}

var testLimits = ArtifactLimits{MaxArchiveBytes: 8 << 20, MaxEntries: 20, MaxEntryBytes: 64 << 10, MaxTotalBytes: 96 << 10}

func all(string) bool { return true }

func TestReadZipHostile(t *testing.T) {
	ok := entry{"agg.json", []byte(`[]`)}
	many := make([]entry, 30)
	for i := range many {
		many[i] = entry{fmt.Sprintf("f%02d", i), []byte("x")}
	}
	valid := makeZip(t, ok, entry{"big.bin", bytes.Repeat([]byte{1}, 4096)})
	tests := []struct {
		name string
		zip  []byte
		want error
	}{
		{"traversal", makeZip(t, ok, entry{"../evil.json", []byte("x")}), checks.ErrMalformed},
		{"nested traversal", makeZip(t, entry{"a/../../evil", []byte("x")}), checks.ErrMalformed},
		{"absolute", makeZip(t, entry{"/etc/passwd", []byte("x")}), checks.ErrMalformed},
		{"backslash", makeZip(t, entry{`a\..\b`, []byte("x")}), checks.ErrMalformed},
		{"drive letter", makeZip(t, entry{"C:evil", []byte("x")}), checks.ErrMalformed},
		{"duplicate", makeZip(t, ok, ok), checks.ErrMalformed},
		{"bomb", makeZip(t, entry{"bomb.json", make([]byte, 1<<20)}), checks.ErrTooLarge},
		{"lying header", lyingZip(t, "bomb.json", make([]byte, 1<<20), 100), checks.ErrMalformed},
		{"total", makeZip(t, entry{"a", make([]byte, 60<<10)}, entry{"b", make([]byte, 60<<10)}), checks.ErrTooLarge},
		{"too many entries", makeZip(t, many...), checks.ErrTooLarge},
		{"truncated", valid[:len(valid)-30], checks.ErrMalformed},
		{"truncated body", valid[:len(valid)/2], checks.ErrMalformed},
		{"not a zip", []byte("<html>502 Bad Gateway</html>"), checks.ErrMalformed},
		{"empty", nil, checks.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadZip(bytes.NewReader(tt.zip), int64(len(tt.zip)), testLimits, all)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadZipReadsOnlyWanted(t *testing.T) {
	// The unwanted bomb is never decompressed, so it cannot trip the limits.
	z := makeZip(t, entry{"dir/", nil}, entry{"results/b.json", []byte("b")}, entry{"bomb.bin", make([]byte, 1<<20)}, entry{"a.json", []byte("a")})
	names, files, err := ReadZip(bytes.NewReader(z), int64(len(z)), testLimits, func(n string) bool { return n != "bomb.bin" })
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(names) != "[a.json bomb.bin results/b.json]" || len(files) != 2 || files[0].Name != "a.json" || string(files[1].Data) != "b" {
		t.Errorf("names=%v files=%v", names, files)
	}
}

func TestHostileArtifactThroughServer(t *testing.T) {
	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	r.Commit("c", "")
	r.Branch("main", "c")
	r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c"}, Files: []*fixture.File{{Filename: "x"}}})
	r.Run(&fixture.WorkflowRun{ID: 1, HeadCommit: "c", Artifacts: []*fixture.Artifact{
		{ID: 10, Name: "evil", RawZip: makeZip(t, entry{"../../x", []byte("x")})},
		{ID: 11, Name: "bomb", RawZip: makeZip(t, entry{"agg.json", make([]byte, 2<<20)})},
	}})
	s := githubtest.New(t, fx)
	src := newSource(t, s, Options{Artifact: ArtifactLimits{MaxEntryBytes: 64 << 10}})
	ctx := context.Background()
	arts, err := src.Artifacts(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.ArtifactFiles(ctx, arts[0], all); !errors.Is(err, checks.ErrMalformed) {
		t.Errorf("traversal: %v", err)
	}
	if _, err := src.ArtifactFiles(ctx, arts[1], all); !errors.Is(err, checks.ErrTooLarge) {
		t.Errorf("bomb: %v", err)
	}
	small := newSource(t, s, Options{Artifact: ArtifactLimits{MaxArchiveBytes: 500}})
	big := arts[1]
	big.SizeBytes = 0 // a listing that understates the size: the download cap still holds
	if _, err := small.ArtifactFiles(ctx, big, all); !errors.Is(err, checks.ErrTooLarge) {
		t.Errorf("archive cap: %v", err)
	}
}

func FuzzArtifactZip(f *testing.F) {
	f.Add(makeZip(f, entry{"agg_eval_all.json", []byte(`[{"task":"gsm8k"}]`)}, entry{"sub/x.json", []byte("{}")}))
	f.Add(makeZip(f, entry{"../x", []byte("x")}))
	f.Add(lyingZip(f, "a", make([]byte, 4096), 10))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	lim := ArtifactLimits{MaxArchiveBytes: 1 << 20, MaxEntries: 16, MaxEntryBytes: 64 << 10, MaxTotalBytes: 128 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		names, files, err := ReadZip(bytes.NewReader(data), int64(len(data)), lim, func(n string) bool { return len(n)%2 == 0 })
		if err != nil {
			if !errors.Is(err, checks.ErrMalformed) && !errors.Is(err, checks.ErrTooLarge) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		if !sort.StringsAreSorted(names) || len(names) > lim.MaxEntries {
			t.Fatalf("names = %v", names)
		}
		var total int64
		have := map[string]bool{}
		for _, n := range names {
			if checkName(n) != nil {
				t.Fatalf("unsafe name returned: %q", n)
			}
			have[n] = true
		}
		for _, fl := range files {
			if !have[fl.Name] || len(fl.Name)%2 != 0 || int64(len(fl.Data)) > lim.MaxEntryBytes {
				t.Fatalf("file %q (%d bytes) breaks the contract", fl.Name, len(fl.Data))
			}
			total += int64(len(fl.Data))
		}
		if total > lim.MaxTotalBytes {
			t.Fatalf("total %d over limit", total)
		}
	})
}

// One verification's artifact entries share one cap, whatever each archive
// holds: nine archives each under the per-archive limits once took one
// verification to 1.5 GB. Entries from the cache count too.
func TestArtifactsOfOneVerificationShareOneCap(t *testing.T) {
	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	r.Commit("c", "")
	r.Branch("main", "c")
	r.Pull(&fixture.Pull{Number: 3412, Head: fixture.Ref{Commit: "c"}, Files: []*fixture.File{{Filename: "x"}}})
	var arts []*fixture.Artifact
	for i := range 3 {
		arts = append(arts, &fixture.Artifact{ID: int64(20 + i), Name: fmt.Sprintf("bmk_%d", i),
			RawZip: makeZip(t, entry{"agg.json", bytes.Repeat([]byte("1"), 1<<20)})})
	}
	r.Run(&fixture.WorkflowRun{ID: 1, HeadCommit: "c", Artifacts: arts})
	s := githubtest.New(t, fx)
	lim := ArtifactLimits{MaxVerificationBytes: 5 << 19} // 2.5 MiB: two entries fit
	cache := NewCache(64 << 20)
	src := newSource(t, s, Options{Artifact: lim, Cache: cache})
	ctx := context.Background()
	listed, err := src.Artifacts(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range listed {
		files, err := src.ArtifactFiles(ctx, a, all)
		switch {
		case i < 2 && (err != nil || len(files) != 1 || len(files[0].Data) != 1<<20):
			t.Fatalf("artifact %d within the cap: %v", i, err)
		case i == 2 && (!errors.Is(err, checks.ErrTooLarge) || !strings.Contains(err.Error(), "MaxVerificationBytes")):
			t.Fatalf("artifact %d over the cap: %v", i, err)
		}
	}
	// The next verification finds two entries cached and is charged for them.
	next := newSource(t, s, Options{Artifact: lim, Cache: cache})
	for i, a := range listed[:2] {
		if _, err := next.ArtifactFiles(ctx, a, all); err != nil {
			t.Fatalf("cached artifact %d: %v", i, err)
		}
	}
	small := newSource(t, s, Options{Artifact: ArtifactLimits{MaxVerificationBytes: 1 << 19}, Cache: cache})
	if _, err := small.ArtifactFiles(ctx, listed[0], all); !errors.Is(err, checks.ErrTooLarge) {
		t.Fatalf("a cached entry over the cap: %v", err)
	}
}
