package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// TestWritesArePaced: sign-offs on many PRs at once, and serve's
// content-creating requests keep to the installation's write budget (no
// stretch of time holds more than the burst plus the rate) while its
// requests in flight stay within their bound; every verdict is published.
// VERDICT_PACE_SIGNOFFS=N runs it with N PRs and the shipped defaults
// and 30 ms per call (BENCHMARKS.md); CI runs 4 PRs at 60 writes a minute
// with a burst of 5.
func TestWritesArePaced(t *testing.T) {
	prs, settings := 4, map[string]string{
		"VERDICT_WRITES_PER_MINUTE":    "60",
		"VERDICT_WRITE_BURST":          "5",
		"VERDICT_GITHUB_MAX_IN_FLIGHT": "8",
	}
	rate, burst, inFlight := 1.0, 5.0, 8
	if n, err := strconv.Atoi(os.Getenv("VERDICT_PACE_SIGNOFFS")); err == nil && n > 0 {
		prs, settings = n, nil
		rate, burst, inFlight = 1.0, 20.0, 48
	}
	const firstPR = 5001
	a := startAppSettings(t, func(fx *fixture.Fixture) {
		r := fx.Repos[0]
		var orig *fixture.Pull
		for _, p := range r.Pulls {
			if p.Number == e2ePR {
				orig = p
			}
		}
		for i := range prs {
			p := *orig
			p.Number = firstPR + i
			p.Comments, p.ReviewComments = nil, nil
			p.Reviews = []*fixture.Review{}
			for _, rv := range orig.Reviews {
				c := *rv
				c.ID = rv.ID + int64(i+1)*1000
				p.Reviews = append(p.Reviews, &c)
			}
			r.Pulls = append(r.Pulls, &p)
		}
	}, settings)
	if settings == nil {
		a.gh.SetLatency(30 * time.Millisecond) // as GitHub answers, so that requests overlap
	}
	start := time.Now()
	for i := range prs {
		n := firstPR + i
		ev := a.gh.PullRequestReviewEvent("submitted", e2eRepo, n, githubtest.EventReview{ID: 3900000001 + int64(i+1)*1000,
			Body: "As a PR reviewer and CODEOWNER, I have reviewed this and have:", User: "amd-owner-a"}, "amd-owner-a")
		if code := a.deliver("pull_request_review", fmt.Sprintf("pace-%d", n), ev, e2eSecret); code != 202 {
			t.Fatalf("delivery for #%d: %d", n, code)
		}
	}
	within := time.Duration(float64(5*prs)/rate*float64(time.Second)) + 2*time.Minute
	for i := range prs {
		n := firstPR + i
		key := fmt.Sprintf("pullrequestreview-%d", 3900000001+int64(i+1)*1000)
		for deadline := time.Now().Add(within); ; {
			if p := observe(a.gh, e2eRepo, n, a.head, key); p.comments == 1 && p.runs == 1 && p.open == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("#%d: no verdict within %s: %+v", n, within, observe(a.gh, e2eRepo, n, a.head, key))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	elapsed := time.Since(start)
	var writes []githubtest.Write
	for _, w := range a.gh.Writes() {
		if !strings.HasPrefix(w.Path, "/app/") { // token minting creates no content
			writes = append(writes, w)
		}
	}
	// Any stretch from write i to write j holds j-i+1 writes: at most the
	// burst plus what the rate refills over its length (and the one that
	// the rounding of a timestamp can move across its edge).
	worst, perMinute := 0.0, 0
	for i := range writes {
		for j := i; j < len(writes); j++ {
			d := writes[j].At.Sub(writes[i].At).Seconds()
			if over := float64(j-i+1) - (burst + rate*d); over > worst {
				worst = over
			}
			if d < 60 {
				perMinute = max(perMinute, j-i+1)
			}
		}
	}
	if worst > 1 {
		t.Errorf("a stretch of writes exceeds the budget by %.1f", worst)
	}
	if perMinute > 80 {
		t.Errorf("%d writes within a minute, over GitHub's 80", perMinute)
	}
	if peak := a.gh.PeakInFlight(); peak > inFlight {
		t.Errorf("%d requests in flight at once, over the bound of %d", peak, inFlight)
	}
	// What counts against the rate limit: every call but the 304s.
	counted := a.gh.TotalCalls() - a.gh.NotModifiedCalls()
	t.Logf("%d PRs: %d writes in %s, at most %d in a minute, %d requests in flight at most; %d API calls, %.1f per verification",
		prs, len(writes), elapsed.Round(time.Second), perMinute, a.gh.PeakInFlight(), counted, float64(counted)/float64(prs))
}
