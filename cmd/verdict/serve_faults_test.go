package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// servable is a shipped case the App verifies on a sign-off event: an open
// PR, a collaborator with write access to send the event, and a verdict.
type servable struct {
	checkCase
	fx     *fixture.Fixture
	repo   string
	pr     int
	head   string
	key    string
	sender string
	want   string // `verdict check` markdown, fault-free
	code   int
}

// servableCases returns up to n servable cases spread over the shipped ones
// (all of them for n <= 0).
func servableCases(t *testing.T, n int) []servable {
	t.Helper()
	var candidates []servable
	for _, c := range fixtureCases(t) {
		fx, err := fixture.Load(c.args[1])
		if err != nil {
			t.Fatal(err)
		}
		r := fx.Repos[0]
		var pull *fixture.Pull
		for _, p := range r.Pulls {
			if c.args[5] == itoa(p.Number) {
				pull = p
			}
		}
		if pull == nil || pull.Draft || (pull.State != "" && pull.State != "open") {
			continue
		}
		var writers []string
		for login, perm := range r.Collaborators {
			okPerm := perm.Permission == "admin" || perm.Permission == "write"
			okRole := perm.RoleName == "admin" || perm.RoleName == "maintain" || perm.RoleName == "write"
			if okPerm && okRole {
				writers = append(writers, login)
			}
		}
		if len(writers) == 0 {
			continue
		}
		sort.Strings(writers)
		candidates = append(candidates, servable{checkCase: c, fx: fx, repo: r.FullName, pr: pull.Number, sender: writers[0]})
	}
	if n > 0 {
		candidates = spread(candidates, n)
	}
	var out []servable
	for _, c := range candidates {
		code, js, _ := runCheckWith(c.args, nil)
		var v jsonVerdict
		if code == exitError || json.Unmarshal([]byte(js), &v) != nil || v.SignOff == "" {
			continue
		}
		// The App verifies as of today: so does the reference.
		args := []string{"--fixture", c.args[1], "--repo", c.args[3], "--pr", c.args[5], "--signoff", v.SignOff, "--format", "markdown"}
		var stdout, stderr bytes.Buffer
		mcode := cmdCheck(context.Background(), args, &stdout, &stderr)
		c.head, c.key, c.want, c.code = v.AssessedSHA, v.SignOff, stdout.String(), mcode
		out = append(out, c)
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestFaultsNeverChangeAPublishedVerdict delivers sign-offs to the App with
// 20 % of GitHub requests failing: each is published exactly once, and the
// comment is the one `verdict check` prints without faults.
func TestFaultsNeverChangeAPublishedVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the App")
	}
	fastGitHub(t)
	seeds, all := faultSeeds(t)
	n := 6
	if all {
		n = 0
	}
	cases := servableCases(t, n)
	if len(cases) < 5 {
		t.Fatalf("only %d servable cases", len(cases))
	}
	injected, same := 0, 0
	for _, c := range cases {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			t.Run(fmt.Sprintf("%s/seed%d", c.name, seed), func(t *testing.T) {
				serveWithFaults(t, c, seed, &injected, &same)
			})
		}
	}
	t.Logf("%d sign-offs x %d seeds published through 20 %% faults (%d faults injected); %d identical to the fault-free `verdict check`",
		len(cases), seeds, injected, same)
}

// serveWithFaults publishes one sign-off through the App with the fault
// mix of seed and compares the comment with the fault-free check.
func serveWithFaults(t *testing.T, c servable, seed uint64, injected, same *int) {
	gh := githubtest.New(t, c.fx)
	gh.SetFaultMix(faultMix(seed))
	app := serveInProcess(t, gh)
	event, payload := signOffEvent(c.fx, c.repo, c.pr, c.head, c.key, c.sender)
	if code := app.deliver(event, "faults-1", payload); code != 202 {
		t.Fatalf("delivery: %d", code)
	}
	waitFinal(t, gh, c.repo, c.pr, c.head, c.key, time.Minute, nil)
	var body string
	for _, cm := range gh.Comments(c.repo, c.pr) {
		if strings.HasPrefix(cm.Body, marker+c.key+" -->\n") {
			body = cm.Body
		}
	}
	if got, want := withoutServerURL(body), withoutServerURL(c.want); got != want {
		t.Errorf("published verdict differs from `verdict check` without faults: %s", firstDifference(got, want))
		return
	}
	wantState := map[int]string{exitPass: "success", exitWarn: "success", exitRejected: "failure"}[c.code]
	if got := observe(gh, c.repo, c.pr, c.head, c.key); got.status != wantState {
		t.Errorf("status %s, want %s", got.status, wantState)
	}
	for _, n := range gh.FaultsInjected() {
		*injected += n
	}
	*same++
}
