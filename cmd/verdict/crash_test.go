package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

const crashKey = "pullrequestreview-3900000001"

// reviewPayload is the sign-off delivery of the crash tests, as the fake
// GitHub builds it (every field GitHub sends).
func reviewPayload(gh *githubtest.Server) map[string]any {
	return gh.PullRequestReviewEvent("submitted", e2eRepo, e2ePR, githubtest.EventReview{ID: 3900000001,
		Body: "As a PR reviewer and CODEOWNER, I have reviewed this and have:", User: "amd-owner-a"}, "amd-owner-a")
}

func sampleServer(t *testing.T, latency time.Duration) *githubtest.Server {
	t.Helper()
	fx, err := fixture.Load(e2eSampleDir)
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(t, fx)
	gh.SetLatency(latency)
	return gh
}

// killPoint is a moment of a verification at which the process dies: the
// effect of the request named has happened on GitHub, its answer is lost.
type killPoint struct {
	name string
	hit  func(githubtest.Served) bool // nil: right after the 202
}

func isWrite(method, suffix string) func(githubtest.Served) bool {
	return func(s githubtest.Served) bool { return s.Method == method && strings.Contains(s.Path, suffix) }
}

func isStatus(final bool) func(githubtest.Served) bool {
	return func(s githubtest.Served) bool {
		return s.Method == "POST" && strings.Contains(s.Path, "/statuses/") && bytes.Contains(s.Body, []byte(`"pending"`)) != final
	}
}

var killPoints = []killPoint{
	{"acknowledged", nil},
	{"pending status written", isStatus(false)},
	{"check run opened", isWrite("POST", "/check-runs")},
	{"reading artifacts", func(s githubtest.Served) bool { return strings.HasPrefix(s.Path, "/_blob/") }},
	{"comment posted", isWrite("POST", "/issues/3412/comments")},
	{"final status written", isStatus(true)},
	{"check run completed", isWrite("PATCH", "/check-runs/")},
}

func crashDatabases() []struct {
	name string
	url  func(t *testing.T) string
} {
	return []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "verdict.db") }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresURL(t) }},
	}
}

// trialResult is how one kill trial went.
type trialResult struct {
	recovery    time.Duration // from the restart to exactly one verdict
	interrupted bool          // the kill came before the first process published
}

// crashTrial runs serve, kills it (SIGKILL) when kp says, restarts it on
// the same database and checks that exactly one verdict is out. killAfter,
// when positive, kills that long after the 202 instead.
func crashTrial(t *testing.T, db string, kp killPoint, killAfter time.Duration, latency time.Duration) trialResult {
	t.Helper()
	gh := sampleServer(t, latency)
	head := gh.Fixture().SHA(e2eRepo, "head")
	env := newAppEnv(t, gh, db)
	first := env.start(t)
	var once sync.Once
	killed := make(chan struct{})
	die := func() { once.Do(func() { first.kill(); close(killed) }) }
	if kp.hit != nil {
		gh.SetHook(func(s githubtest.Served) {
			if kp.hit(s) {
				die()
			}
		})
	}
	if code := first.deliver("pull_request_review", "crash-1", reviewPayload(gh)); code != 202 {
		t.Fatalf("delivery: %d", code)
	}
	switch {
	case killAfter > 0:
		time.AfterFunc(killAfter, die)
	case kp.hit == nil:
		die()
	}
	select {
	case <-killed:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the kill point %q was never reached: %+v", kp.name, observe(gh, e2eRepo, e2ePR, head, crashKey))
	}
	gh.SetHook(nil)
	interrupted := first.count("verified") == 0
	second := env.start(t)
	took := waitPublished(t, gh, head, crashKey, time.Minute, second)
	// The job must end too: the restart runs it (to "verified") unless the
	// first process had finished it, and nothing runs again afterwards.
	done := func() bool {
		resumed := second.count("resumed a job whose process died") > 0
		return second.count("verified") > 0 || (!resumed && first.count("verified") > 0)
	}
	deadline := time.Now().Add(time.Minute)
	for !done() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	writes := len(gh.Writes())
	time.Sleep(300 * time.Millisecond)
	if got := observe(gh, e2eRepo, e2ePR, head, crashKey); !got.final() || len(gh.Writes()) != writes {
		t.Fatalf("verdict did not stay single and final: %+v, %d more writes", got, len(gh.Writes())-writes)
	}
	if n := second.count("verified"); n > 1 {
		t.Errorf("the restarted process verified %d times", n)
	}
	if err := second.term(); err != nil {
		t.Errorf("serve exited with %v after SIGTERM", err)
	}
	return trialResult{recovery: took, interrupted: interrupted}
}

// TestCrashRecovery kills `verdict serve` at each point of a verification
// and restarts it on the same database: exactly one comment, a final
// status and a completed check run follow, on SQLite and PostgreSQL.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("runs verdict serve processes")
	}
	for _, db := range crashDatabases() {
		points := killPoints
		if db.name == "postgres" {
			// What differs on PostgreSQL is how a dead process is noticed
			// and its lock freed: every other point is covered on SQLite.
			points = []killPoint{killPoints[0], killPoints[2], killPoints[4], killPoints[6]}
		}
		for _, kp := range points {
			t.Run(db.name+"/"+kp.name, func(t *testing.T) {
				r := crashTrial(t, db.url(t), kp, 0, 0)
				t.Logf("one verdict %d ms after the restart", r.recovery.Milliseconds())
			})
		}
	}
}

// TestCrashTrials is the long form for BENCHMARKS.md: VERDICT_CRASH_TRIALS
// kills per database at random moments (uniform over the 1.5 s after the
// 202, with 30 ms per GitHub call: before, during and just after the
// verification), each followed by a restart.
func TestCrashTrials(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("VERDICT_CRASH_TRIALS"))
	if n <= 0 {
		t.Skip("set VERDICT_CRASH_TRIALS=N to run N kill trials per database")
	}
	for _, db := range crashDatabases() {
		t.Run(db.name, func(t *testing.T) {
			var times []time.Duration
			ok, interrupted := 0, 0
			for i := range n {
				at := time.Duration(rand.Int64N(int64(1500 * time.Millisecond)))
				t.Run(fmt.Sprintf("trial%d", i), func(t *testing.T) {
					r := crashTrial(t, db.url(t), killPoint{name: "random"}, at, 30*time.Millisecond)
					ok++
					if r.interrupted {
						interrupted++
						times = append(times, r.recovery)
					}
				})
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			msg := fmt.Sprintf("%s: %d/%d trials ended with exactly one comment, a final status and one completed check run; "+
				"%d kills interrupted the verification", db.name, ok, n, interrupted)
			if len(times) > 0 {
				msg += fmt.Sprintf(", published after the restart in median %d ms, max %d ms",
					times[len(times)/2].Milliseconds(), times[len(times)-1].Milliseconds())
			}
			t.Log(msg)
		})
	}
}
