package githubtest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadFixture feeds arbitrary fixture.yaml text to the loader: it must
// return a fixture or an error, never panic or hang.
func FuzzLoadFixture(f *testing.F) {
	f.Add("repos:\n  - name: a/b\n    commits: [{name: x}]\n    branches: {main: x}\n    pulls: [{number: 1, head: {commit: x}, files: [{filename: f}]}]\n")
	f.Add("trees: {a: {base: b}, b: {base: a}}\n")
	f.Add("a: &a [*a, *a]\n")
	f.Add("repos: [{name: a/b, workflow_runs: [{head_commit: x}]}]\n")
	f.Fuzz(func(t *testing.T, body string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "fixture.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fx, err := LoadFixture(dir)
		if err == nil && fx == nil {
			t.Fatal("nil fixture without error")
		}
	})
}
