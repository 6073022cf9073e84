package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// faultRate is the share of GitHub requests the fault tests fail.
const faultRate = 0.2

// faultMix is the fake GitHub's 20 % fault mix (502, 503, hang, 403
// secondary limit, 429) with a fixed seed. Hangs outlast the client's
// per-attempt timeout, which the tests shorten to keep the suite fast.
func faultMix(seed uint64) githubtest.FaultMix {
	return githubtest.FaultMix{Rate: faultRate, Seed: seed, Hang: 2 * time.Second, RetryAfter: 0}
}

// fastGitHub shortens the per-attempt timeout and retry pauses of the
// GitHub clients `verdict check` builds.
func fastGitHub(t *testing.T) {
	t.Setenv("VERDICT_GITHUB_TIMEOUT", "300ms")
	t.Setenv("VERDICT_GITHUB_BACKOFF", "2ms")
}

// checkCase is one pull request of one shipped fixture.
type checkCase struct {
	name string
	args []string
}

func fixtureCases(t *testing.T) []checkCase {
	t.Helper()
	root := filepath.Join("..", "..", "testdata", "fixtures")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []checkCase
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		fx, err := fixture.Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		r := fx.Repos[0]
		var prs []int
		for _, p := range r.Pulls {
			prs = append(prs, p.Number)
		}
		sort.Ints(prs)
		for _, n := range prs {
			out = append(out, checkCase{name: fmt.Sprintf("%s/pr%d", d.Name(), n),
				args: []string{"--fixture", dir, "--repo", r.FullName, "--pr", strconv.Itoa(n), "--date", sampleReviewDate}})
		}
	}
	return out
}

// runCheckWith runs `verdict check --format json` with hook applied to the
// fake GitHub it serves and returns the exit code and output.
func runCheckWith(args []string, hook func(*githubtest.Server)) (int, string, *githubtest.Server) {
	var srv *githubtest.Server
	fixtureHook = func(s *githubtest.Server) {
		srv = s
		if hook != nil {
			hook(s)
		}
	}
	defer func() { fixtureHook = nil }()
	var stdout, stderr bytes.Buffer
	code := cmdCheck(context.Background(), append([]string{"--format", "json"}, args...), &stdout, &stderr)
	return code, withoutServerURL(stdout.String() + stderr.String()), srv
}

var fakeURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// withoutServerURL replaces the fake GitHub's address, a random port that
// some reasons quote in GitHub's own error text, by a fixed one.
func withoutServerURL(s string) string {
	return fakeURL.ReplaceAllString(s, "http://github.test")
}

// faultSeeds is VERDICT_FAULT_SEEDS: the long form of the fault tests runs
// every shipped case with that many seeds; without it a spread of cases
// runs with seed 1, to keep the suite fast.
func faultSeeds(t *testing.T) (seeds int, all bool) {
	t.Helper()
	v := os.Getenv("VERDICT_FAULT_SEEDS")
	if v == "" {
		return 1, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("VERDICT_FAULT_SEEDS=%q: want a positive number", v)
	}
	return n, true
}

// spread picks n cases evenly from all (all of them when n >= len).
func spread[T any](all []T, n int) []T {
	if n >= len(all) {
		return all
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

// TestFaultsNeverChangeAVerdict runs shipped cases through `verdict check`
// without faults and with 20 % of GitHub requests failing: every verdict,
// every row and the exit code must be the same.
func TestFaultsNeverChangeAVerdict(t *testing.T) {
	fastGitHub(t)
	seeds, all := faultSeeds(t)
	cases := fixtureCases(t)
	if !all {
		cases = spread(cases, 16)
	}
	injected := map[string]int{}
	requests, same := 0, 0
	for _, c := range cases {
		wantCode, want, _ := runCheckWith(c.args, nil)
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			code, got, srv := runCheckWith(c.args, func(s *githubtest.Server) { s.SetFaultMix(faultMix(seed)) })
			requests += srv.TotalCalls()
			for k, n := range srv.FaultsInjected() {
				injected[k] += n
			}
			if code != wantCode || got != want {
				t.Errorf("%s, seed %d: exit %d, want %d; %s", c.name, seed, code, wantCode, firstDifference(got, want))
				continue
			}
			same++
		}
	}
	total := 0
	for _, n := range injected {
		total += n
	}
	t.Logf("%d cases x %d seeds: %d requests, %d faults injected %v, %d of %d verdicts identical",
		len(cases), seeds, requests, total, injected, same, len(cases)*seeds)
	if total == 0 {
		t.Fatal("no fault was injected")
	}
}

// firstDifference names the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d differs from the fault-free run:\n got %s\nwant %s", i+1, gl, wl)
		}
	}
	return "outputs are equal"
}
