package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeSamples runs the sample commands of the README and checks the
// verdict and exit code written above each.
func TestReadmeSamples(t *testing.T) {
	re := regexp.MustCompile(`(?m)^# (PASS|REJECTED|WARN), exit (\d):.*\n(go run \./cmd/verdict check .*)$`)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(readme(t), -1) {
		want, code := m[1], m[2]
		seen[want] = true
		args := strings.Fields(strings.TrimPrefix(m[3], "go run ./cmd/verdict check "))
		for i, a := range args {
			if i > 0 && args[i-1] == "--fixture" {
				args[i] = filepath.Join("..", "..", a)
			}
		}
		t.Run(want, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := cmdCheck(context.Background(), args, &stdout, &stderr)
			if strconv.Itoa(got) != code {
				t.Errorf("%s: exit %d, README says %s (%s)", m[3], got, code, stderr.String())
			}
			header := map[string]string{"PASS": "**Verdict: PASS**", "REJECTED": "**REJECTED**", "WARN": "**Verdict: WARN**"}[want]
			if !strings.Contains(stdout.String(), header) {
				t.Errorf("%s prints no %s verdict:\n%s", m[3], want, stdout.String())
			}
		})
	}
	for _, v := range []string{"PASS", "REJECTED", "WARN"} {
		if !seen[v] {
			t.Errorf("README has no %s sample command", v)
		}
	}
}

// TestReadmeDocumentsEveryFlag: every flag of every subcommand (as its -h
// prints them) is named in the README.
func TestReadmeDocumentsEveryFlag(t *testing.T) {
	doc := readme(t)
	flagRE := regexp.MustCompile(`(?m)^\s+-([A-Za-z0-9][A-Za-z0-9-]*)`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	invocations := [][]string{{"config", "check", "-h"}, {"config", "schema", "-h"}}
	for _, n := range names {
		invocations = append(invocations, []string{n, "-h"})
	}
	for _, inv := range invocations {
		_, stdout, stderr := runCLI(inv...)
		for _, m := range flagRE.FindAllStringSubmatch(stdout+stderr, -1) {
			name := m[1]
			mentioned := regexp.MustCompile(`(^|[^A-Za-z0-9-])--?` + regexp.QuoteMeta(name) + `([^A-Za-z0-9-]|$)`)
			if !mentioned.MatchString(doc) {
				t.Errorf("README does not document flag -%s of verdict %s", name, strings.Join(inv[:len(inv)-1], " "))
			}
		}
	}
}
