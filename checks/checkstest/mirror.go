package checkstest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Mirror is the bare clone of the InferenceX repository the history tests
// read (VERDICT_INFERENCEX_MIRROR); the test is skipped without one.
func Mirror(t testing.TB) string {
	repo := os.Getenv("VERDICT_INFERENCEX_MIRROR")
	if repo == "" {
		t.Skip("VERDICT_INFERENCEX_MIRROR (a bare clone of SemiAnalysisAI/InferenceX) is not set")
	}
	if _, err := os.Stat(repo); err != nil {
		t.Skipf("mirror %s is absent", repo)
	}
	return repo
}

// HistoryBlobs maps every blob that was ever at a path keep accepts, on any
// ref of repo, to its paths.
func HistoryBlobs(t testing.TB, repo string, keep func(path string) bool) map[string][]string {
	out, err := exec.Command("git", "-C", repo, "log", "--all", "--raw", "--no-abbrev", "--no-renames", "--format=", "--root", "-m").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	m := map[string][]string{}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		meta, p, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 5 || strings.Trim(f[3], "0") == "" || !keep(p) {
			continue
		}
		if k := f[3] + p; !seen[k] {
			seen[k] = true
			m[f[3]] = append(m[f[3]], p)
		}
	}
	return m
}

// PathCount is the number of distinct paths of HistoryBlobs' result.
func PathCount(m map[string][]string) int {
	ps := map[string]bool{}
	for _, v := range m {
		for _, p := range v {
			ps[p] = true
		}
	}
	return len(ps)
}

// CatBlobs streams blobs through one git cat-file --batch.
func CatBlobs(t testing.TB, repo string, ids []string, f func(id string, data []byte)) {
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

// BashSays is what bash -n (parse only, nothing runs) says about a script:
// "accepts", or "rejects (…)" / "reports (…)" with its first complaint.
func BashSays(t testing.TB, data []byte) string {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "bash not installed"
	}
	f := t.TempDir() + "/s.sh"
	if err := os.WriteFile(f, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bash, "-n", f)
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg, _, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(stderr.String(), f, "script")), "\n")
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
