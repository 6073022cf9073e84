package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/store"
)

// historyOf runs `verdict history` on the App's database and returns its
// exit code, stdout and stderr.
func historyOf(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Getenv: func(k string) string {
		if k == "VERDICT_DATABASE_URL" {
			return db
		}
		return ""
	}, Stdout: &out, Stderr: &errb}
	code := run(context.Background(), append([]string{"history"}, args...), env)
	return code, out.String(), errb.String()
}

// The App records every verification (with its delivery, commit, body hash,
// rows, duration and API calls) and every command; `verdict history` reads
// them back newest first from the database serve was configured with.
func TestAppHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a := startApp(t)
	const reviewKey = "pullrequestreview-3900000001"
	review := a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a")
	if code := a.deliver("pull_request_review", "d-history-review", review, e2eSecret); code != 202 {
		t.Fatalf("review delivery: %d", code)
	}
	a.waitFor("the first verdict", a.completedCheckRun)
	cmd := "/verdict recheck\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: cmd})
	if code := a.deliver("issue_comment", "d-history-recheck", a.flowCommentEvent("created", id, cmd, "maintainer-a", "OWNER"), e2eSecret); code != 202 {
		t.Fatalf("recheck delivery: %d", code)
	}
	var got historyJSON
	a.waitFor("three history events", func() bool {
		code, out, errs := historyOf(t, a.db, "--repo", e2eRepo, "--pr", fmt.Sprint(e2ePR), "--format", "json")
		if code != 0 {
			t.Fatalf("verdict history: exit %d: %s", code, errs)
		}
		got = historyJSON{}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("history JSON: %v\n%s", err, out)
		}
		return len(got.Events) >= 3
	})
	if len(got.Events) != 3 {
		t.Fatalf("history has %d events, want 3: %+v", len(got.Events), got.Events)
	}
	cmdEv, second, first := got.Events[0], got.Events[1], got.Events[2]
	if cmdEv.Kind != string(store.KindCommand) || cmdEv.Actor != "maintainer-a" || cmdEv.DeliveryID != "d-history-recheck" ||
		!strings.HasPrefix(cmdEv.Detail, "/verdict recheck — verified ") {
		t.Errorf("newest event is not the recheck command: %+v", cmdEv)
	}
	for _, c := range []struct {
		e        eventJSON
		delivery string
	}{{first, "d-history-review"}, {second, "d-history-recheck"}} {
		v := c.e.Verification
		if c.e.Kind != "verification" || v == nil {
			t.Fatalf("not a verification: %+v", c.e)
		}
		if c.e.DeliveryID != c.delivery || c.e.SHA != a.head || c.e.SignOffKey == "" || len(v.BodySHA256) != 64 ||
			v.Verdict != "PASS" || len(v.Rows) != 16 || v.APICalls == 0 || !strings.Contains(v.CommentURL, "#issuecomment-") {
			t.Errorf("verification of %s recorded as %+v / %+v", c.delivery, c.e, *v)
		}
	}
	if first.SignOffKey != reviewKey || first.Actor != "amd-owner-a" {
		t.Errorf("first verification: %s by %s", first.SignOffKey, first.Actor)
	}
	if first.At.After(second.At) || second.At.After(cmdEv.At) {
		t.Errorf("not newest first: %s, %s, %s", cmdEv.At, second.At, first.At)
	}

	// The text form says the same, one event per paragraph.
	code, text, _ := historyOf(t, a.db, "--repo", strings.ToLower(e2eRepo), "--pr", fmt.Sprint(e2ePR), "--limit", "2")
	if code != 0 || !strings.HasPrefix(text, strings.ToLower(e2eRepo)+"#3412: 2 events, newest first\n") ||
		!strings.Contains(text, "delivery d-history-recheck") || !strings.Contains(text, "PASS in ") ||
		!strings.Contains(text, "    0  PASS  CODEOWNER: ") || !strings.Contains(text, "代码所有者：") || strings.Contains(text, "d-history-review") {
		t.Errorf("text history (exit %d):\n%s", code, text)
	}
}

func TestHistoryUsage(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite://" + dir + "/v.db"
	st, err := store.Open(context.Background(), db) // serve made it
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--pr", "1"}, 2, "--repo OWNER/NAME is required"},
		{[]string{"--repo", "o/r"}, 2, "--pr N is required"},
		{[]string{"--repo", "o/r", "--pr", "1", "--format", "yaml"}, 2, "--format must be text or json"},
		{[]string{"--repo", "o/r", "--pr", "1", "--database-url", "mysql://x"}, 1, "database URL"},
		{[]string{"--repo", "o/r", "--pr", "1"}, 0, ""},
		// A mistyped path is no empty history: nothing is created.
		{[]string{"--repo", "o/r", "--pr", "1", "--database-url", "sqlite://" + dir + "/typo.db"}, 1, "no database at " + dir + "/typo.db"},
	} {
		code, out, errs := historyOf(t, db, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) || (tc.err != "" && strings.Count(errs, "\n") != 1) {
			t.Errorf("history %v: exit %d, stderr %q", tc.args, code, errs)
		}
		if code == 0 && out != "o/r#1: 0 events, newest first\n" {
			t.Errorf("empty history printed %q", out)
		}
	}
	if _, err := os.Stat(dir + "/typo.db"); err == nil {
		t.Error("verdict history created a database at a mistyped path")
	}
}
