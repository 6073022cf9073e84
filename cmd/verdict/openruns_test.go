package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/store"
)

// TestOpenRunSettled: a check run an attempt opened and nothing completed
// (its verification was cut, superseded or lost) is completed by the next
// pass once no verification of its PR is pending — cancelled, since no
// verdict stands for its commit — and forgotten; while one is pending it
// is left to it.
func TestOpenRunSettled(t *testing.T) {
	fx, err := fixture.Load(fixtureDir("sample-e2e-agentic"))
	if err != nil {
		t.Fatal(err)
	}
	gh := githubtest.New(t, fx)
	env := map[string]string{
		"VERDICT_APP_ID": fmt.Sprint(fx.App.ID), "VERDICT_WEBHOOK_SECRET": e2eSecret,
		"VERDICT_PRIVATE_KEY": string(appKey(t)), "VERDICT_GITHUB_URL": gh.BaseURL(),
		"VERDICT_GITHUB_TIMEOUT": "300ms", "VERDICT_GITHUB_BACKOFF": "2ms",
	}
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "v.db")
	cfg, err := config.LoadServer([]string{"-database-url", dbURL}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := appWiring(gh.PageTransport())(ctx, cfg, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	const key = "pullrequestreview-3900000001"
	repo, head := "SemiAnalysisAI/InferenceX", gh.Fixture().SHA("SemiAnalysisAI/InferenceX", "head")
	run, _, err := gh.Client().Checks.CreateCheckRun(ctx, "SemiAnalysisAI", "InferenceX", github.CreateCheckRunOptions{
		Name: publish.DefaultCheckRunName, HeadSHA: head, ExternalID: github.String(key + "@" + head), Status: github.String("in_progress")})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutOpenRun(ctx, store.OpenRun{Repo: repo, Key: key, HeadSHA: head, PR: 3412, Installation: fx.App.InstallationID,
		OpenedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	status := func() (string, string) {
		for _, r := range gh.CheckRuns(repo, head) {
			if r.GetID() == run.GetID() {
				return r.GetStatus(), r.GetConclusion()
			}
		}
		return "", ""
	}
	pr := jobs.PRKey(jobs.Repo{Owner: "SemiAnalysisAI", Name: "InferenceX"}, 3412)
	if err := h.Runs.SettleRuns(ctx, func(k string) bool { return k == pr }); err != nil {
		t.Fatal(err)
	}
	if s, _ := status(); s != "in_progress" {
		t.Fatalf("run %s while its PR's verification is pending; want it left to it", s)
	}
	if err := h.Runs.SettleRuns(ctx, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if s, c := status(); s != "completed" || c != "cancelled" {
		t.Errorf("run %s/%s; want completed, cancelled", s, c)
	}
	if left, err := st.OpenRuns(ctx, time.Now(), 10); err != nil || len(left) != 0 {
		t.Errorf("open runs after the pass: %+v, %v", left, err)
	}
}
