package shell

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRealScripts parses every distinct blob of every *.sh file in the
// history of a bare clone of the InferenceX repository
// (VERDICT_INFERENCEX_MIRROR). A blob the reader rejects must be one bash
// rejects too (bash -n exits non-zero or reports an error).
func TestRealScripts(t *testing.T) {
	repo := os.Getenv("VERDICT_INFERENCEX_MIRROR")
	if repo == "" {
		t.Skip("VERDICT_INFERENCEX_MIRROR (a bare clone of SemiAnalysisAI/InferenceX) is not set")
	}
	if _, err := os.Stat(repo); err != nil {
		t.Skipf("mirror %s is absent", repo)
	}
	paths := shellBlobs(t, repo)
	ids := make([]string, 0, len(paths))
	for id := range paths {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var failed []string
	ok, mostSteps, maxSize := 0, 0, 0
	nested := map[NestKind]int{}
	catBlobs(t, repo, ids, func(id string, data []byte) {
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
			failed = append(failed, fmt.Sprintf("%s %s (%d paths): %v | bash -n: %s", id[:12], paths[id][0], len(paths[id]), err, bashCheck(t, data)))
			return
		}
		ok++
	})
	sort.Strings(failed)
	t.Logf("%d distinct blobs of %d *.sh paths: %d parse, %d fail", len(ids), countPaths(paths), ok, len(failed))
	t.Logf("largest blob %d bytes; most lookups in one script %d (limit %d); commands in shell -c strings %d, shell heredocs %d, eval %d",
		maxSize, mostSteps, maxSteps, nested[InShellString], nested[InShellHeredoc], nested[InEval])
	for _, f := range failed {
		t.Log(f)
		if strings.HasSuffix(f, "bash -n: accepts") {
			t.Errorf("rejected a script bash accepts: %s", f)
		}
	}
}

// shellBlobs maps every blob that was ever a *.sh file to its paths.
func shellBlobs(t testing.TB, repo string) map[string][]string {
	out, err := exec.Command("git", "-C", repo, "log", "--all", "--raw", "--no-abbrev", "--no-renames", "--format=", "--root", "-m").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	m := map[string][]string{}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		meta, p, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 5 || !strings.HasSuffix(p, ".sh") || strings.Trim(f[3], "0") == "" {
			continue
		}
		if k := f[3] + p; !seen[k] {
			seen[k] = true
			m[f[3]] = append(m[f[3]], p)
		}
	}
	return m
}

func countPaths(m map[string][]string) int {
	ps := map[string]bool{}
	for _, v := range m {
		for _, p := range v {
			ps[p] = true
		}
	}
	return len(ps)
}

// catBlobs streams blobs through one git cat-file --batch.
func catBlobs(t testing.TB, repo string, ids []string, f func(string, []byte)) {
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	for range ids {
		hdr, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file: %v", err)
		}
		h := strings.Fields(hdr)
		if len(h) != 3 {
			t.Fatalf("cat-file: %q", hdr)
		}
		n, _ := strconv.Atoi(h[2])
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		f(h[0], buf[:n])
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

// bashCheck asks bash -n (parse only, nothing runs) about a script bash
// would reject; "accepts" when it reports nothing.
func bashCheck(t testing.TB, data []byte) string {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "bash not installed"
	}
	f, err := os.CreateTemp(t.TempDir(), "*.sh")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data)
	f.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bash, "-n", f.Name())
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg := strings.TrimSpace(strings.ReplaceAll(stderr.String(), f.Name(), "script"))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	switch {
	case err != nil && msg != "":
		return "rejects (" + msg + ")"
	case err != nil:
		return "rejects (" + err.Error() + ")"
	case msg != "":
		return "reports (" + msg + ")"
	}
	return "accepts"
}

// BenchmarkRealScript parses the largest *.sh blob of the mirror's history.
func BenchmarkRealScript(b *testing.B) {
	repo := os.Getenv("VERDICT_INFERENCEX_MIRROR")
	if repo == "" {
		b.Skip("VERDICT_INFERENCEX_MIRROR (a bare clone of SemiAnalysisAI/InferenceX) is not set")
	}
	paths := shellBlobs(b, repo)
	ids := make([]string, 0, len(paths))
	for id := range paths {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var largest []byte
	name := ""
	catBlobs(b, repo, ids, func(id string, data []byte) {
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
