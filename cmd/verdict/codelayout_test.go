package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of Verdict's own packages.
const module = "github.com/verdict-bot/verdict/"

// packages maps every package directory of the module (relative, with
// forward slashes) to the imports of its non-test files.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if !slices.Contains(out[pkg], p) {
				out[pkg] = append(out[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// listedPackages are the packages ARCHITECTURE.md's "Layout of the code"
// section has a line for.
func listedPackages(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Layout of the code\n")
	if start < 0 {
		t.Fatal(`ARCHITECTURE.md has no "## Layout of the code" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var out []string
	for _, m := range regexp.MustCompile("(?m)^- `([a-z0-9_/]+?)/?` — ").FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestCodeLayout: ARCHITECTURE.md lists every package, and only packages that
// exist, one line each.
func TestCodeLayout(t *testing.T) {
	pkgs := packages(t)
	listed := listedPackages(t)
	seen := map[string]bool{}
	for _, p := range listed {
		if seen[p] {
			t.Errorf("ARCHITECTURE.md lists %s twice under Layout of the code", p)
		}
		seen[p] = true
		if _, ok := pkgs[p]; !ok {
			t.Errorf("ARCHITECTURE.md lists %s under Layout of the code, but there is no such package", p)
		}
	}
	for p := range pkgs {
		if !seen[p] {
			t.Errorf("package %s is missing from ARCHITECTURE.md, Layout of the code (one line: what it holds, what it may import)", p)
		}
	}
}

// importRule is one of the rules ARCHITECTURE.md states for the main layers.
type importRule struct {
	rule    string
	applies func(pkg string) bool
	forbids func(imp string) bool
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// internal is the module-relative path of a Verdict import, "" for others.
func internal(imp string) string {
	if p, ok := strings.CutPrefix(imp, module); ok {
		return p
	}
	return ""
}

// standard reports an import of the standard library (no dot in its
// first element).
func standard(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

var importRules = []importRule{
	{"checks imports only the standard library",
		func(p string) bool { return p == "checks" },
		func(imp string) bool { return !standard(imp) }},
	{"nothing under checks/ imports app/, cmd/ or go-github",
		func(p string) bool { return under(p, "checks") },
		func(imp string) bool {
			return under(internal(imp), "app") || under(internal(imp), "cmd") || strings.HasPrefix(imp, "github.com/google/go-github/")
		}},
	{"checks/format/… never imports checks/inferencex/…",
		func(p string) bool { return under(p, "checks/format") },
		func(imp string) bool { return under(internal(imp), "checks/inferencex") }},
	{"app/ reaches a checklist only through checks.Preset: nothing under app/ imports a preset",
		func(p string) bool { return under(p, "app") },
		func(imp string) bool { return preset(internal(imp)) }},
	{"nothing under app/ imports cmd/",
		func(p string) bool { return under(p, "app") },
		func(imp string) bool { return under(internal(imp), "cmd") }},
	{"app/ghapi is imported only by cmd/verdict",
		func(p string) bool { return p != "cmd/verdict" },
		func(imp string) bool { return internal(imp) == "app/ghapi" }},
	{"app/retry imports only the standard library",
		func(p string) bool { return p == "app/retry" },
		func(imp string) bool { return !standard(imp) }},
	{"app/ghclient does not import app/jobs",
		func(p string) bool { return p == "app/ghclient" },
		func(imp string) bool { return internal(imp) == "app/jobs" }},
	{"app/publish does not import app/verify",
		func(p string) bool { return p == "app/publish" },
		func(imp string) bool { return internal(imp) == "app/verify" }},
}

// preset reports a package of a checklist preset: anything under checks/
// but the contract itself, the format readers and the test helpers.
func preset(pkg string) bool {
	return under(pkg, "checks") && pkg != "checks" && !under(pkg, "checks/format") && !under(pkg, "checks/checkstest")
}

// importViolations checks pkgs (package → imports) against the rules and
// says what breaks them, including any package linked into the binary
// (from cmd/verdict) that imports testing.
func importViolations(pkgs map[string][]string) []string {
	var out []string
	for pkg, imps := range pkgs {
		for _, r := range importRules {
			if !r.applies(pkg) {
				continue
			}
			for _, imp := range imps {
				if r.forbids(imp) {
					out = append(out, pkg+" imports "+imp+": "+r.rule)
				}
			}
		}
	}
	linked := map[string]bool{}
	var visit func(string)
	visit = func(pkg string) {
		if linked[pkg] {
			return
		}
		linked[pkg] = true
		for _, imp := range pkgs[pkg] {
			if p := internal(imp); p != "" {
				visit(p)
			}
		}
	}
	visit("cmd/verdict")
	for pkg := range linked {
		if slices.Contains(pkgs[pkg], "testing") {
			out = append(out, pkg+" imports testing: no package linked into the verdict binary may")
		}
	}
	slices.Sort(out)
	return out
}

// TestImportRules enforces, on every non-test file, the import rules the
// ARCHITECTURE.md states for the main layers.
func TestImportRules(t *testing.T) {
	for _, v := range importViolations(packages(t)) {
		t.Error(v)
	}
}

// TestImportRulesCatchViolations: each rule, and the testing rule, reports
// an import graph that breaks it.
func TestImportRulesCatchViolations(t *testing.T) {
	m := func(p string) string { return module + p }
	tests := []struct {
		pkg, imp string
		want     string
	}{
		{"checks", "gopkg.in/yaml.v3", "checks imports only the standard library"},
		{"checks/inferencex", m("app/render"), "nothing under checks/ imports app/"},
		{"checks/format/udiff", "github.com/google/go-github/v62/github", "nothing under checks/ imports app/, cmd/ or go-github"},
		{"checks/format/signoff", m("checks/inferencex/repo"), "checks/format/… never imports checks/inferencex/…"},
		{"app/verify", m("cmd/verdict"), "nothing under app/ imports cmd/"},
		{"app/render", m("checks/inferencex"), "nothing under app/ imports a preset"},
		{"app/publish", m("checks/inferencex/repo/changeset"), "nothing under app/ imports a preset"},
		{"app/verify", m("app/ghapi"), "app/ghapi is imported only by cmd/verdict"},
		{"app/retry", m("app/jobs"), "app/retry imports only the standard library"},
		{"app/ghclient", m("app/jobs"), "app/ghclient does not import app/jobs"},
		{"app/publish", m("app/verify"), "app/publish does not import app/verify"},
		{"app/githubtest", "testing", "no package linked into the verdict binary"},
	}
	for _, tt := range tests {
		pkgs := map[string][]string{
			"cmd/verdict":    {m("app/verify"), m("app/ghapi"), m("app/githubtest")},
			"app/verify":     {m("app/publish"), m("checks")},
			"app/githubtest": {"net/http"},
			tt.pkg:           {tt.imp},
		}
		got := importViolations(pkgs)
		if len(got) != 1 || !strings.Contains(got[0], tt.want) {
			t.Errorf("%s importing %s: violations %q, want one saying %q", tt.pkg, tt.imp, got, tt.want)
		}
	}
	clean := map[string][]string{"cmd/verdict": {m("app/ghapi")}, "app/ghapi": {m("app/ghsource")}, "app/ghsource": {"net/http"}}
	if got := importViolations(clean); len(got) != 0 {
		t.Errorf("a clean graph broke rules: %q", got)
	}
}
