package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

// TestHelpExitsZero: asking for help is success for every subcommand,
// including ones added later (the table is read, not copied).
func TestHelpExitsZero(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, h := range []string{"-h", "--help"} {
			code, stdout, stderr := runCLI(n, h)
			if code != 0 {
				t.Errorf("verdict %s %s exited %d: %s", n, h, code, stderr)
			}
			if !strings.Contains(stdout+stderr, "usage") && !strings.Contains(stdout+stderr, "Usage") {
				t.Errorf("verdict %s %s printed no usage: %q", n, h, stdout+stderr)
			}
		}
		if code, _, stderr := runCLI("help", n); code != 0 {
			t.Errorf("verdict help %s exited %d: %s", n, code, stderr)
		}
	}
	for _, sub := range [][]string{{"config", "check", "-h"}, {"config", "schema", "--help"}, {"config", "help"}} {
		if code, _, stderr := runCLI(sub...); code != 0 {
			t.Errorf("verdict %s exited %d: %s", strings.Join(sub, " "), code, stderr)
		}
	}
}

func TestBareVerdictPrintsUsage(t *testing.T) {
	code, stdout, _ := runCLI()
	if code != 0 || !strings.HasPrefix(stdout, "usage: verdict <command>") {
		t.Errorf("verdict alone: exit %d, stdout %q", code, stdout)
	}
	for n := range commands {
		if !strings.Contains(stdout, "  "+n+" ") {
			t.Errorf("usage does not list %s", n)
		}
	}
	if code, _, stderr := runCLI("frobnicate"); code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, stderr %q", code, stderr)
	}
}

func TestDescribeBuild(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/verdict-bot/verdict", Version: "v1.4.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "159f87d4c0ffee"}, {Key: "vcs.time", Value: "2026-11-20T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	tests := []struct {
		name     string
		bi       *debug.BuildInfo
		ver, rev string
		want     []string
		short    string
	}{
		{"stamped", stamped, "", "", []string{"verdict v1.4.0", "revision 159f87d4c0ffee (modified)", "committed 2026-11-20T12:00:00Z", "go go1.26.0"}, "v1.4.0+159f87d4c0ff-modified"},
		{"ldflags win", stamped, "v2.0.0", "abc123", []string{"verdict v2.0.0", "revision abc123", "committed 2026-11-20T12:00:00Z", "go go1.26.0"}, "v2.0.0+abc123"},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, "", "", []string{"verdict (devel)", "revision unknown (built without VCS information)", "go go1.26.0"}, "(devel)"},
		{"no build info", nil, "", "", []string{"verdict (devel)", "revision unknown (built without VCS information)"}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := describe(tt.bi, tt.ver, tt.rev)
			if got := strings.Join(b.lines(), "\n"); got != strings.Join(tt.want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", got, strings.Join(tt.want, "\n"))
			}
			if got := b.short(); got != tt.short {
				t.Errorf("short = %q, want %q", got, tt.short)
			}
		})
	}
	code, stdout, _ := runCLI("version")
	if code != 0 || !strings.HasPrefix(stdout, "verdict ") || !strings.Contains(stdout, "\nrevision ") {
		t.Errorf("verdict version: exit %d, %q", code, stdout)
	}
}

func TestConfigCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.yml", "pareto_minimum: 0\nstatus:\n  warnas: failure\n")
	tests := []struct {
		name       string
		args       []string
		code       int
		wantStdout []string
		wantStderr string
	}{
		{"example", []string{filepath.Join("..", "..", "deploy", "verdict.example.yml")}, 0, []string{"verdict.example.yml: valid"}, ""},
		{"bad", []string{bad}, 1, []string{
			bad + ":1:1: pareto_minimum must be between 1 and 1000, not 0",
			bad + ":3:3: unknown key status.warnas (did you mean status.warn_as?)",
		}, ""},
		{"fixture", []string{filepath.Join("..", "..", "testdata", "fixtures", "bad-s8-config", "trees", "main", ".github", "verdict.yml")}, 1,
			[]string{"verdict.yml:6:1: unknown key sign_off_phrase (did you mean signoff_phrase?)"}, ""},
		{"syntax", []string{write("syntax.yml", "a: [\n")}, 1, []string{"syntax.yml:1: YAML syntax:"}, ""},
		{"missing", []string{filepath.Join(dir, "nope.yml")}, 1, nil, "no such file"},
		{"two files", []string{bad, bad}, 2, nil, "one file at a time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"config", "check"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stdout %q, stderr %q)", code, tt.code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(tt.wantStdout) > 0 && len(lines) != len(tt.wantStdout) {
				t.Errorf("stdout %q, want %d lines", stdout, len(tt.wantStdout))
			}
			for i, w := range tt.wantStdout {
				if i < len(lines) && !strings.Contains(lines[i], w) {
					t.Errorf("line %d = %q, want containing %q", i+1, lines[i], w)
				}
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q, want containing %q", stderr, tt.wantStderr)
			}
		})
	}
	code, stdout, _ := runCLI("config", "schema")
	if code != 0 || !strings.Contains(stdout, `"$schema": "https://json-schema.org/draft/2020-12/schema"`) {
		t.Errorf("config schema: exit %d, %q", code, stdout[:min(len(stdout), 200)])
	}
}
