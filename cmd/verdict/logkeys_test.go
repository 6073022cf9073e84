package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// logKeys is every attribute key Verdict's log lines may use: one key per
// concept, so a search for a delivery, a PR or a sign-off finds every line.
var logKeys = []string{
	// The identity of what a line is about.
	"delivery_id", "repo", "pr", "head_sha", "signoff", "event", "action", "actor",
	"job", "job_id", "attempt", "attempted_by", "comment_id", "comment_url", "run_id",
	// What happened.
	"err", "cause", "reason", "outcome", "verdict", "conclusion", "http_status", "posted",
	"generation", "latest", "lock", "jobs", "deliveries", "owners", "line", "command", "bot",
	"api_calls", "superseded_by", "standing", "how",
	// A push's marks (verdict comments marked, the commit the last verdict
	// covered) and a recovery pass's counts.
	"marked", "covered", "listed", "redelivered", "gave_up", "skipped",
	// A sign-off's own people and its state's time (the actor is whoever
	// triggered the job).
	"author", "editor", "at",
	// Durations, always in milliseconds.
	"duration_ms", "wait_ms",
	// Process start.
	"addr", "database", "version", "component",
	// The soft memory limit set from the container's, and the
	// verifications' memory budget, in bytes.
	"memory_limit_bytes", "container_memory_bytes", "memory_budget_bytes",
	// A merge group's checks: its branch, its PRs and how many may not merge.
	"ref", "prs", "failed",
}

// logSynonyms are keys that name a concept under another word; each maps
// to the key to use.
var logSynonyms = map[string]string{
	"delivery": "delivery_id", "deliveryid": "delivery_id", "guid": "delivery_id",
	"sha": "head_sha", "head": "head_sha", "commit": "head_sha", "headsha": "head_sha",
	"owner": "repo", "repository": "repo", "full_name": "repo", "name": "repo",
	"number": "pr", "pull": "pr", "pull_request": "pr", "pr_number": "pr",
	"key": "signoff", "signoff_key": "signoff", "sign_off": "signoff",
	"sender": "actor", "user": "actor", "login": "actor", "by": "actor",
	"kind": "job", "comment": "comment_url", "url": "comment_url", "status": "http_status",
	"error": "err", "duration": "duration_ms", "elapsed": "duration_ms", "took": "duration_ms",
	"wait": "wait_ms", "delay": "wait_ms", "timeout": "wait_ms",
}

// logMethods are the *slog.Logger methods (and slog functions) whose
// arguments after the message are key-value pairs or attributes.
var logMethods = map[string]int{ // method → index of the first key
	"Debug": 1, "Info": 1, "Warn": 1, "Error": 1,
	"DebugContext": 2, "InfoContext": 2, "WarnContext": 2, "ErrorContext": 2,
	"Log": 3, "LogAttrs": 3, "With": 0,
}

// loggerRE matches what a logger is called in this module: log, logger,
// x.log, x.Logger, x.logger(...) and the slog package itself.
var loggerRE = regexp.MustCompile(`(^|\.)(log|logger|Logger|slog)(\(.*\))?$`)

// TestLogKeys scans every non-test source file for slog calls: each key is
// a constant from logKeys (a synonym says which key to use instead), and a
// duration goes in milliseconds under a key ending in _ms.
func TestLogKeys(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	allowed := map[string]bool{}
	for _, k := range logKeys {
		allowed[k] = true
	}
	var problems []string
	report := func(pos token.Pos, format string, args ...any) {
		p := fset.Position(pos)
		rel, _ := filepath.Rel(root, p.Filename)
		problems = append(problems, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), p.Line, fmt.Sprintf(format, args...)))
	}
	calls := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			first, ok := logMethods[sel.Sel.Name]
			if !ok || !loggerRE.MatchString(source(fset, sel.X)) || len(call.Args) < first {
				return true
			}
			calls++
			checkLogArgs(fset, call.Args[first:], call.Ellipsis.IsValid(), allowed, report)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 50 {
		t.Fatalf("found only %d slog calls; the scan no longer recognises the module's loggers", calls)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// checkLogArgs checks the key-value pairs and attributes of one call.
func checkLogArgs(fset *token.FileSet, args []ast.Expr, spread bool, allowed map[string]bool, report func(token.Pos, string, ...any)) {
	key := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		k, err := strconv.Unquote(lit.Value)
		return k, err == nil
	}
	checkKey := func(pos token.Pos, k string, value ast.Expr) {
		switch {
		case logSynonyms[k] != "":
			report(pos, "log key %q: use %q", k, logSynonyms[k])
		case !allowed[k]:
			report(pos, "log key %q is not in logKeys (cmd/verdict/logkeys_test.go); reuse a key or add it there", k)
		}
		if value == nil {
			return
		}
		v := source(fset, value)
		if strings.HasSuffix(k, "_ms") != strings.HasSuffix(v, ".Milliseconds()") {
			report(pos, "log key %q with value %s: durations are logged as milliseconds (x.Milliseconds()) under a key ending in _ms", k, v)
		}
		if strings.HasPrefix(v, "time.Since(") && !strings.HasSuffix(v, ".Milliseconds()") {
			report(pos, "log key %q: a duration in nanoseconds", k)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if spread && i == len(args)-1 {
			report(a.Pos(), "log attributes passed as %s...: keys must be visible at the call", source(fset, a))
			return
		}
		if k, ok := key(a); ok {
			var value ast.Expr
			if i+1 < len(args) {
				value = args[i+1]
			}
			checkKey(a.Pos(), k, value)
			i++
			continue
		}
		// slog.String("k", v), slog.Int(...), slog.Group("k", ...): an
		// attribute occupies one argument.
		if c, ok := a.(*ast.CallExpr); ok {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && source(fset, s.X) == "slog" && len(c.Args) > 0 {
				if k, ok := key(c.Args[0]); ok {
					var value ast.Expr
					if len(c.Args) > 1 && s.Sel.Name != "Group" {
						value = c.Args[1]
					}
					checkKey(a.Pos(), k, value)
					continue
				}
			}
		}
		report(a.Pos(), "log key %s is not a constant string", source(fset, a))
		i++
	}
}

func source(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, e)
	return b.String()
}

// TestLogKeysTable: the synonyms never name an allowed key, so no key is
// both required and refused.
func TestLogKeysTable(t *testing.T) {
	for syn, use := range logSynonyms {
		if slices.Contains(logKeys, syn) {
			t.Errorf("%q is both a key and a synonym of %q", syn, use)
		}
		if !slices.Contains(logKeys, use) {
			t.Errorf("synonym %q points at %q, which is not a key", syn, use)
		}
	}
}
