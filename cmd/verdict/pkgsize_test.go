package main

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxPackageLines bounds a package's non-test Go source: past it a package
// has stopped being one thing a reader can hold in mind, and should be
// split by what its parts provide.
const maxPackageLines = 4000

// vagueNames are package names that say nothing of what a package provides.
var vagueNames = []string{"util", "utils", "common", "helpers", "misc", "shared"}

// packageLines counts the lines of each package's non-test Go files.
func packageLines(t *testing.T) map[string]int {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string]int{}
	for pkg := range packages(t) {
		files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pkg), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[pkg] += bytes.Count(b, []byte("\n"))
		}
	}
	return out
}

// sizeViolations says which packages are over the bound or vaguely named.
func sizeViolations(lines map[string]int) []string {
	var out []string
	for pkg, n := range lines {
		if n > maxPackageLines {
			out = append(out, fmt.Sprintf("%s has %d lines of non-test Go (bound %d): split it by what its parts provide", pkg, n, maxPackageLines))
		}
		if slices.Contains(vagueNames, path.Base(pkg)) {
			out = append(out, pkg+": a package is named for what it provides, not "+path.Base(pkg))
		}
	}
	slices.Sort(out)
	return out
}

// TestPackageSize keeps every non-test package within maxPackageLines and
// named for what it provides.
func TestPackageSize(t *testing.T) {
	for _, v := range sizeViolations(packageLines(t)) {
		t.Error(v)
	}
}

func TestPackageSizeCatchesViolations(t *testing.T) {
	got := sizeViolations(map[string]int{"app/big": maxPackageLines + 1, "app/fine": maxPackageLines, "checks/common": 10})
	want := []string{
		"app/big has 4001 lines of non-test Go (bound 4000): split it by what its parts provide",
		"checks/common: a package is named for what it provides, not common",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sizeViolations = %q, want %q", got, want)
	}
}
