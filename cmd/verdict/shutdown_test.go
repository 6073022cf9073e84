package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/store"
)

// verifyJob reads the one verification job's state and attempt count from
// a database no process uses any more.
func verifyJob(t *testing.T, db string) (state string, attempt, errs int) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q := `SELECT state, attempt, json_array_length(errors) FROM river_job WHERE kind = 'verdict.verify'`
	if st.Dialect() == store.Postgres {
		q = `SELECT state, attempt, coalesce(array_length(errors, 1), 0) FROM river_job WHERE kind = 'verdict.verify'`
	}
	var n *int
	if err := st.DB().QueryRow(context.Background(), q).Scan(&state, &attempt, &n); err != nil {
		t.Fatal(err)
	}
	if n != nil {
		errs = *n
	}
	return state, attempt, errs
}

// sigtermAtPending sends SIGTERM to p once the verification has marked
// the commit pending, i.e. while it runs.
func sigtermAtPending(gh *githubtest.Server, p **serveProc) {
	var once sync.Once
	gh.SetHook(func(s githubtest.Served) {
		if isStatus(false)(s) {
			once.Do(func() { go (*p).term() })
		}
	})
}

// TestSIGTERMLetsTheVerificationFinish: SIGTERM during a verification
// stops fetching jobs but lets the running one publish; the job completes
// on its first attempt and "verified" is logged once.
func TestSIGTERMLetsTheVerificationFinish(t *testing.T) {
	if testing.Short() {
		t.Skip("runs verdict serve processes")
	}
	for _, db := range crashDatabases() {
		t.Run(db.name, func(t *testing.T) {
			gh := sampleServer(t, 20*time.Millisecond)
			head := gh.Fixture().SHA(e2eRepo, "head")
			url := db.url(t)
			env := newAppEnv(t, gh, url)
			var p *serveProc
			sigtermAtPending(gh, &p)
			p = env.start(t)
			if code := p.deliver("pull_request_review", "term-1", reviewPayload(gh)); code != 202 {
				t.Fatalf("delivery: %d", code)
			}
			<-p.done
			if p.err != nil {
				t.Fatalf("serve exited with %v after SIGTERM", p.err)
			}
			if got := observe(gh, e2eRepo, e2ePR, head, crashKey); !got.final() {
				t.Fatalf("the running verification was not published: %+v", got)
			}
			if n := p.count("verified"); n != 1 {
				t.Errorf(`"verified" logged %d times, want 1`, n)
			}
			if state, attempt, errs := verifyJob(t, url); state != "completed" || attempt != 1 || errs != 0 {
				t.Errorf("job %s after %d attempts with %d errors; want completed at the first, none", state, attempt, errs)
			}
		})
	}
}

// TestSIGTERMAfterTheGrace: a verification still running when the grace
// ends is cancelled without being published, logged as verified or
// charged an attempt, and the next start publishes it once.
func TestSIGTERMAfterTheGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs verdict serve processes")
	}
	gh := sampleServer(t, 20*time.Millisecond)
	head := gh.Fixture().SHA(e2eRepo, "head")
	url := "sqlite://" + filepath.Join(t.TempDir(), "verdict.db")
	env := newAppEnv(t, gh, url)
	env.extra["VERDICT_SHUTDOWN_GRACE"] = "200ms"
	// Artifacts come slowly: the verification outlasts the grace.
	gh.AddFault(githubtest.Fault{Path: `^/_blob/`, Delay: 3 * time.Second})
	var p *serveProc
	sigtermAtPending(gh, &p)
	p = env.start(t)
	if code := p.deliver("pull_request_review", "term-2", reviewPayload(gh)); code != 202 {
		t.Fatalf("delivery: %d", code)
	}
	<-p.done
	if p.err != nil {
		t.Fatalf("serve exited with %v after SIGTERM", p.err)
	}
	got := observe(gh, e2eRepo, e2ePR, head, crashKey)
	if got.comments != 0 || got.status != "pending" || p.count("verified") != 0 {
		t.Fatalf("an interrupted verification published or logged a verdict: %+v, %d verified", got, p.count("verified"))
	}
	if state, attempt, _ := verifyJob(t, url); (state != "available" && state != "scheduled") || attempt != 0 {
		t.Fatalf("job %s after %d attempts; want waiting with no attempt spent", state, attempt)
	}
	gh.SetHook(nil)
	gh.ClearFaults()
	again := env.start(t)
	waitPublished(t, gh, head, crashKey, time.Minute, again)
	deadline := time.Now().Add(time.Minute)
	for again.count("verified") == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := again.count("verified"); n != 1 {
		t.Errorf(`"verified" logged %d times after the restart, want 1`, n)
	}
	if err := again.term(); err != nil {
		t.Errorf("serve exited with %v", err)
	}
}

// TestServeStartsWithoutGitHub: with GitHub answering 503 to everything
// and no VERDICT_APP_SLUG, serve starts, is healthy, stores a delivery, and
// verifies it once GitHub is back.
func TestServeStartsWithoutGitHub(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the App")
	}
	gh := sampleServer(t, 0)
	head := gh.Fixture().SHA(e2eRepo, "head")
	gh.AddFault(githubtest.Fault{Status: http.StatusServiceUnavailable})
	app := serveInProcess(t, gh)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(app.base + path)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s while GitHub is down: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	if code := app.deliver("pull_request_review", "down-1", reviewPayload(gh)); code != 202 {
		t.Fatalf("delivery while GitHub is down: %d", code)
	}
	deadline := time.Now().Add(time.Minute)
	for gh.Calls("GET /app") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := gh.Calls("GET /app"); n < 2 {
		t.Fatalf("the App's identity was asked for %d times while GitHub was down", n)
	}
	if got := observe(gh, e2eRepo, e2ePR, head, crashKey); got.comments+got.runs != 0 || got.status != "" {
		t.Fatalf("published while GitHub was down: %+v", got)
	}
	gh.ClearFaults()
	waitPublished(t, gh, head, crashKey, time.Minute, nil)
	for _, w := range gh.Writes() {
		if strings.Contains(w.Path, "/statuses/") && w.Status >= 300 {
			t.Errorf("write %s %s answered %d", w.Method, w.Path, w.Status)
		}
	}
}
