package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

// TestReplicas starts three `verdict serve` processes at once on a fresh
// PostgreSQL schema, so that all of them migrate the empty database
// together, then sends each sign-off's delivery to one replica and its
// redeliveries to the other two: every replica stays up, every sign-off
// gets exactly one verdict, and the PR's verifications never overlap.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("runs verdict serve processes")
	}
	db := storetest.PostgresURL(t)
	gh := sampleServer(t, 0)
	head := gh.Fixture().SHA(e2eRepo, "head")
	env := newAppEnv(t, gh, db)

	const replicas = 3
	procs := make([]*serveProc, replicas)
	addrs := make([]<-chan string, replicas)
	for i := range procs {
		procs[i], addrs[i] = env.launch(t)
	}
	for i, p := range procs {
		p.listening(addrs[i])
	}

	// The fixture's review and three more sign-offs on the same PR.
	type signOff struct {
		key, event string
		payload    map[string]any
	}
	offs := []signOff{{crashKey, "pull_request_review", reviewPayload(gh)}}
	for i, login := range []string{"amd-owner-a", "amd-owner-b", "amd-owner-a"} {
		body := fmt.Sprintf("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked (%d)\nSigned: `%s`\n", i, login)
		id := gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: login, Association: "MEMBER", Body: body})
		c := gh.Comments(e2eRepo, e2ePR)
		ev := gh.IssueCommentEvent("created", e2eRepo, e2ePR, githubtest.EventComment{ID: id, Body: body, User: login,
			Association: "MEMBER", UpdatedAt: c[len(c)-1].UpdatedAt}, login, "User")
		offs = append(offs, signOff{fmt.Sprintf("issuecomment-%d", id), "issue_comment", ev})
	}
	for i, so := range offs {
		delivery := fmt.Sprintf("replica-%d", i)
		for r := range replicas {
			// Round robin: the first delivery to replica i, the
			// redeliveries (same ID) to the next ones.
			if code := procs[(i+r)%replicas].deliver(so.event, delivery, so.payload); code != http.StatusAccepted {
				t.Fatalf("delivery %s to replica %d: %d", delivery, (i+r)%replicas, code)
			}
		}
	}
	// The newest sign-off's verdict is the commit's: its status and check
	// run. An older one verified after it publishes its own comment only
	// (checks/inferencex/RULES.md, "Sign-off integrity"), so its check run
	// depends on the order the replicas ran them in: at most one, completed.
	newest := offs[len(offs)-1].key
	own := func(p published) bool { return p.comments == 1 && p.runs <= 1 && p.open == 0 }
	waitFinal(t, gh, e2eRepo, e2ePR, head, newest, 2*time.Minute, nil)
	for _, so := range offs {
		deadline := time.Now().Add(2 * time.Minute)
		for got := observe(gh, e2eRepo, e2ePR, head, so.key); !own(got); got = observe(gh, e2eRepo, e2ePR, head, so.key) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no verdict comment of its own within 2m: %+v", so.key, got)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	time.Sleep(500 * time.Millisecond)
	for _, so := range offs {
		if got := observe(gh, e2eRepo, e2ePR, head, so.key); !own(got) || (so.key == newest && !got.final()) {
			t.Errorf("%s: not exactly one verdict: %+v", so.key, got)
		}
	}
	for i, p := range procs {
		if p.exited() {
			t.Fatalf("replica %d exited: %v\n%s", i, p.err, p.log())
		}
		resp, err := http.Get(p.base + "/readyz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("replica %d not ready: %v %v", i, err, resp)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
	// "verified" is logged once a verification has also hidden the verdicts
	// it outdates, which waits for the write budget: after its comment.
	verified := 0
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		verified = 0
		for _, p := range procs {
			verified += p.count("verified")
		}
		if verified >= len(offs) || time.Now().After(deadline) {
			break
		}
	}
	if verified != len(offs) {
		t.Errorf("%d verifications across the replicas, want %d", verified, len(offs))
	}
	checkSerialized(t, gh.Writes())
	for i, p := range procs {
		if err := p.term(); err != nil {
			t.Errorf("replica %d exited with %v after SIGTERM", i, err)
		}
	}
}

// checkSerialized fails when one verification of the PR opened its check
// run while another's was still open: at most one runs per PR at a time.
func checkSerialized(t *testing.T, writes []githubtest.Write) {
	t.Helper()
	open, runs := "", 0
	for _, w := range writes {
		if !strings.HasSuffix(w.Path, "/check-runs") && !strings.Contains(w.Path, "/check-runs/") {
			continue
		}
		var body struct {
			ExternalID string `json:"external_id"`
			Status     string `json:"status"`
		}
		if err := json.Unmarshal(w.Body, &body); err != nil {
			t.Fatalf("check-run write %s %s: %v", w.Method, w.Path, err)
		}
		switch body.Status {
		case "in_progress":
			if open != "" && open != body.ExternalID {
				t.Errorf("verification of %s began while %s was running", body.ExternalID, open)
			}
			open = body.ExternalID
			runs++
		case "completed":
			if open != body.ExternalID {
				t.Errorf("verification of %s completed, but %q was the one running", body.ExternalID, open)
			}
			open = ""
		}
	}
	if runs == 0 {
		t.Error("no check run was opened: serialization not observed")
	}
}
