package shell

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

// TestRealScripts parses every distinct blob of every *.sh file in the
// history of a bare clone of the InferenceX repository
// (VERDICT_INFERENCEX_MIRROR). A blob the reader rejects must be one bash
// rejects too (bash -n exits non-zero or reports an error).
func TestRealScripts(t *testing.T) {
	repo := checkstest.Mirror(t)
	paths := checkstest.HistoryBlobs(t, repo, func(p string) bool { return strings.HasSuffix(p, ".sh") })
	ids := make([]string, 0, len(paths))
	for id := range paths {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var failed []string
	ok, mostSteps, maxSize := 0, 0, 0
	nested := map[NestKind]int{}
	checkstest.CatBlobs(t, repo, ids, func(id string, data []byte) {
		sc, err := Parse(paths[id][0], data)
		maxSize = max(maxSize, len(data))
		if sc != nil {
			mostSteps = max(mostSteps, sc.steps)
			for _, c := range sc.Commands {
				for _, n := range c.Nest {
					nested[n.Kind]++
				}
			}
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s %s (%d paths): %v | bash -n: %s", id[:12], paths[id][0], len(paths[id]), err, checkstest.BashSays(t, data)))
			return
		}
		ok++
	})
	sort.Strings(failed)
	t.Logf("%d distinct blobs of %d *.sh paths: %d parse, %d fail", len(ids), checkstest.PathCount(paths), ok, len(failed))
	t.Logf("largest blob %d bytes; most lookups in one script %d (limit %d); commands in shell -c strings %d, shell heredocs %d, eval %d",
		maxSize, mostSteps, maxSteps, nested[InShellString], nested[InShellHeredoc], nested[InEval])
	for _, f := range failed {
		t.Log(f)
		if strings.HasSuffix(f, "bash -n: accepts") {
			t.Errorf("rejected a script bash accepts: %s", f)
		}
	}
}

// BenchmarkRealScript parses the largest *.sh blob of the mirror's history.
func BenchmarkRealScript(b *testing.B) {
	repo := checkstest.Mirror(b)
	paths := checkstest.HistoryBlobs(b, repo, func(p string) bool { return strings.HasSuffix(p, ".sh") })
	ids := make([]string, 0, len(paths))
	for id := range paths {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var largest []byte
	name := ""
	checkstest.CatBlobs(b, repo, ids, func(id string, data []byte) {
		if len(data) > len(largest) {
			largest, name = data, paths[id][0]
		}
	})
	b.Logf("%s: %d bytes", name, len(largest))
	b.SetBytes(int64(len(largest)))
	for b.Loop() {
		if _, err := Parse(name, largest); err != nil {
			b.Fatal(err)
		}
	}
}
