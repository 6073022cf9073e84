package router

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/checks/format/signoff"
	"github.com/verdict-bot/verdict/deploy"
)

const signOff = "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] item"

var (
	repo    = jobs.Repo{InstallationID: 42, Owner: "SemiAnalysisAI", Name: "InferenceX"}
	updated = time.Date(2026, 11, 5, 9, 30, 0, 0, time.UTC)
)

// ev builds a payload; fields are merged over the common ones.
func ev(action string, fields map[string]any) []byte {
	p := map[string]any{
		"action":       action,
		"repository":   map[string]any{"full_name": "SemiAnalysisAI/InferenceX", "name": "InferenceX", "owner": map[string]any{"login": "SemiAnalysisAI"}},
		"installation": map[string]any{"id": 42},
		"sender":       map[string]any{"login": "alice", "type": "User"},
	}
	for k, v := range fields {
		p[k] = v
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

func prIssue() map[string]any {
	return map[string]any{"number": 12, "pull_request": map[string]any{"url": "x"}}
}

func cmt(id int64, body string, assoc string) map[string]any {
	return map[string]any{"id": id, "body": body, "user": map[string]any{"login": "bob", "type": "User"},
		"author_association": assoc, "updated_at": updated.Format(time.RFC3339)}
}

func pr(n int) map[string]any {
	return map[string]any{"number": n, "head": map[string]any{"sha": "abc123"}, "user": map[string]any{"login": "carol"}}
}

// ref is the sign-off a key names; "" is the newest.
func ref(key string) signoff.Ref {
	if key == "" {
		return signoff.Ref{}
	}
	r, err := signoff.ParseKey(key)
	if err != nil {
		panic(err)
	}
	return r
}

// verify is the verification of a delivery that carried body: a review's
// payload has no updated_at, a comment's has.
func verify(key, action, body string) jobs.VerifyArgs {
	at := updated
	if strings.HasPrefix(key, "pullrequestreview-") {
		at = time.Time{}
	}
	return jobs.VerifyArgs{Repo: repo, PR: 12, SignOff: ref(key), ActorLogin: "alice", ActorType: "User", DeliveryID: "d", Action: action,
		Delivered: signoff.StampOf(body, at)}
}

func reuse(action, body, before string) jobs.ReuseArgs {
	return jobs.ReuseArgs{Repo: repo, PR: 12, CommentID: 5, Action: action, Body: body, UpdatedAt: updated, PreviousBody: before,
		AuthorLogin: "bob", AuthorAssociation: "MEMBER", DeliveryID: "d"}
}

func withdraw(key, how string) jobs.WithdrawArgs {
	return jobs.WithdrawArgs{Repo: repo, PR: 12, SignOff: ref(key), How: how, ActorLogin: "alice", DeliveryID: "d"}
}

func recheck(key string) jobs.VerifyArgs {
	return jobs.VerifyArgs{Repo: repo, PR: 12, SignOff: ref(key), ActorLogin: "alice", ActorType: "User", DeliveryID: "d", Action: "recheck", Manual: true}
}

func TestRoute(t *testing.T) {
	edit := func(from string) map[string]any { return map[string]any{"body": map[string]any{"from": from}} }
	tests := []struct {
		name  string
		event string
		body  []byte
		want  []jobs.Args
	}{
		// issue_comment
		{"issue comment created", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff, "MEMBER")}),
			[]jobs.Args{verify("issuecomment-5", "created", signOff)}},
		{"issue comment edited", "issue_comment", ev("edited", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff, "MEMBER"), "changes": edit("old")}),
			[]jobs.Args{verify("issuecomment-5", "edited", signOff)}},
		{"issue comment deleted", "issue_comment", ev("deleted", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff, "MEMBER")}),
			[]jobs.Args{withdraw("issuecomment-5", "deleted")}},
		{"bot's sign-off edited by a human", "issue_comment", ev("edited", map[string]any{"issue": prIssue(),
			"comment": map[string]any{"id": 5, "body": signOff, "user": map[string]any{"login": "helper[bot]", "type": "Bot"}}, "changes": edit("old")}), nil},
		{"comment without phrase deleted", "issue_comment", ev("deleted", map[string]any{"issue": prIssue(), "comment": cmt(5, "LGTM", "MEMBER")}), nil},
		{"issue comment on an issue", "issue_comment", ev("created", map[string]any{"issue": map[string]any{"number": 12}, "comment": cmt(5, signOff, "MEMBER")}), nil},
		{"no phrase", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "LGTM", "MEMBER")}), nil},
		{"phrase lowercased", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "as a pr reviewer and codeowner", "MEMBER")}), nil},
		{"edit removed phrase", "issue_comment", ev("edited", map[string]any{"issue": prIssue(), "comment": cmt(5, "withdrawn", "MEMBER"), "changes": edit(signOff)}), nil},
		{"null body", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": map[string]any{"id": 5, "body": nil, "user": map[string]any{"login": "bob"}}}), nil},
		// pull_request_review
		{"review submitted", "pull_request_review", ev("submitted", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": 9, "body": signOff, "user": map[string]any{"login": "bob"}}}),
			[]jobs.Args{verify("pullrequestreview-9", "submitted", signOff)}},
		{"review edited", "pull_request_review", ev("edited", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": 9, "body": signOff, "user": map[string]any{"login": "bob"}}}),
			[]jobs.Args{verify("pullrequestreview-9", "edited", signOff)}},
		{"review dismissed", "pull_request_review", ev("dismissed", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": 9, "body": signOff, "user": map[string]any{"login": "bob"}}}),
			[]jobs.Args{withdraw("pullrequestreview-9", "dismissed")}},
		{"bot review submitted", "pull_request_review", ev("submitted", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": 9, "body": signOff, "user": map[string]any{"login": "lint", "type": "Bot"}}}), nil},
		{"review without body", "pull_request_review", ev("submitted", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": 9, "body": nil, "user": map[string]any{"login": "bob"}}}), nil},
		// pull_request_review_comment
		{"inline created", "pull_request_review_comment", ev("created", map[string]any{"pull_request": pr(12), "comment": cmt(77, signOff, "MEMBER")}),
			[]jobs.Args{verify("discussion_r77", "created", signOff)}},
		{"inline edited", "pull_request_review_comment", ev("edited", map[string]any{"pull_request": pr(12), "comment": cmt(77, signOff, "MEMBER")}),
			[]jobs.Args{verify("discussion_r77", "edited", signOff)}},
		{"inline deleted", "pull_request_review_comment", ev("deleted", map[string]any{"pull_request": pr(12), "comment": cmt(77, signOff, "MEMBER")}),
			[]jobs.Args{withdraw("discussion_r77", "deleted")}},
		// sanity gate: identifiers GitHub would not send
		{"bad repo name", "issue_comment", ev("created", map[string]any{"repository": map[string]any{"full_name": "o/r/x"}, "issue": prIssue(), "comment": cmt(5, signOff, "MEMBER")}), nil},
		{"bad author login", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": map[string]any{"id": 5, "body": signOff, "user": map[string]any{"login": "bo b"}}}), nil},
		{"zero comment id", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(0, signOff, "MEMBER")}), nil},
		{"negative review id", "pull_request_review", ev("submitted", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": -9, "body": signOff, "user": map[string]any{"login": "bob"}}}), nil},
		// reuse pre-filter
		{"reuse created", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/reuse-sweep-run", "MEMBER")}),
			[]jobs.Args{reuse("created", "/reuse-sweep-run", "")}},
		{"use with id", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "thanks\n  /use 123", "MEMBER")}),
			[]jobs.Args{reuse("created", "thanks\n  /use 123", "")}},
		{"bare use still reaches acknowledger", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/use", "MEMBER")}),
			[]jobs.Args{reuse("created", "/use", "")}},
		{"command removed by edit", "issue_comment", ev("edited", map[string]any{"issue": prIssue(), "comment": cmt(5, "never mind", "MEMBER"), "changes": edit("/use 9")}),
			[]jobs.Args{reuse("edited", "never mind", "/use 9")}},
		{"command comment deleted", "issue_comment", ev("deleted", map[string]any{"issue": prIssue(), "comment": cmt(5, "/use 9", "MEMBER")}),
			[]jobs.Args{reuse("deleted", "/use 9", "")}},
		{"mid-line command", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "please /use 9", "MEMBER")}), nil},
		{"quoted command", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "> /use 9", "MEMBER")}), nil},
		{"prefix only", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/user 9", "MEMBER")}), nil},
		{"reuse on an issue", "issue_comment", ev("created", map[string]any{"issue": map[string]any{"number": 12}, "comment": cmt(5, "/use 9", "MEMBER")}), nil},
		{"sign-off with command", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff+"\n/reuse-sweep-run", "MEMBER")}),
			[]jobs.Args{verify("issuecomment-5", "created", signOff+"\n/reuse-sweep-run"), reuse("created", signOff+"\n/reuse-sweep-run", "")}},
		// /verdict recheck
		{"recheck newest", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck", "MEMBER")}),
			[]jobs.Args{recheck("")}},
		{"recheck named", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck https://github.com/semianalysisai/inferencex/pull/12#pullrequestreview-31", "OWNER")}),
			[]jobs.Args{recheck("pullrequestreview-31")}},
		{"recheck named on GHES", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck https://ghes.example.com/SemiAnalysisAI/InferenceX/pull/12/files#discussion_r7", "OWNER")}),
			[]jobs.Args{recheck("discussion_r7")}},
		{"recheck other PR", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck https://github.com/SemiAnalysisAI/InferenceX/pull/13#issuecomment-31", "OWNER")}), nil},
		{"recheck other repo", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck https://github.com/x/InferenceX/pull/12#issuecomment-31", "OWNER")}), nil},
		{"recheck by outsider", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck", "CONTRIBUTOR")}), nil},
		{"recheck mid-line", "issue_comment", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "do /verdict recheck", "MEMBER")}), nil},
		{"recheck re-edited", "issue_comment", ev("edited", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck\nthanks", "MEMBER"), "changes": edit("/verdict recheck")}), nil},
		{"recheck deleted", "issue_comment", ev("deleted", map[string]any{"issue": prIssue(), "comment": cmt(5, "/verdict recheck", "MEMBER")}), nil},
		// welcome
		{"pr opened", "pull_request", ev("opened", map[string]any{"number": 12, "pull_request": pr(12)}),
			[]jobs.Args{jobs.WelcomeArgs{Repo: repo, PR: 12, Action: "opened", HeadSHA: "abc123", AuthorLogin: "carol", DeliveryID: "d"}}},
		{"pr reopened", "pull_request", ev("reopened", map[string]any{"number": 12, "pull_request": pr(12)}),
			[]jobs.Args{jobs.WelcomeArgs{Repo: repo, PR: 12, Action: "reopened", HeadSHA: "abc123", AuthorLogin: "carol", DeliveryID: "d"}}},
		{"pr ready", "pull_request", ev("ready_for_review", map[string]any{"number": 12, "pull_request": pr(12)}),
			[]jobs.Args{jobs.WelcomeArgs{Repo: repo, PR: 12, Action: "ready_for_review", HeadSHA: "abc123", AuthorLogin: "carol", DeliveryID: "d"}}},
		{"pr review requested", "pull_request", ev("review_requested", map[string]any{"number": 12, "pull_request": pr(12)}),
			[]jobs.Args{jobs.WelcomeArgs{Repo: repo, PR: 12, Action: "review_requested", HeadSHA: "abc123", AuthorLogin: "carol", DeliveryID: "d"}}},
		{"pr synchronize", "pull_request", ev("synchronize", map[string]any{"number": 12, "pull_request": pr(12), "before": "b0", "after": "abc123"}),
			[]jobs.Args{jobs.HeadMovedArgs{Repo: repo, PR: 12, Before: "b0", After: "abc123", DeliveryID: "d"}}},
		{"pr labeled", "pull_request", ev("labeled", map[string]any{"number": 12, "pull_request": pr(12)}), nil},
		{"pr closed", "pull_request", ev("closed", map[string]any{"number": 12, "pull_request": pr(12)}), nil},
		// everything else
		{"push", "push", []byte(`{"ref":"refs/heads/main"}`), nil},
		{"deployment", "deployment", []byte(`not even json`), nil},
	}
	r := Router{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := r.Route(tc.event, "d", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if d.IgnoredSender {
				t.Fatal("sender ignored")
			}
			if !reflect.DeepEqual(d.Jobs, tc.want) {
				t.Fatalf("jobs:\n got %#v\nwant %#v", d.Jobs, tc.want)
			}
		})
	}
}

func TestRouteIgnoresBots(t *testing.T) {
	r := Router{AppSlug: "verdict-bot"}
	for _, sender := range []map[string]any{
		{"login": "verdict-bot[bot]", "type": "Bot"},
		{"login": "github-actions[bot]", "type": "User"},
		{"login": "renovate", "type": "Bot"},
		{"login": "verdict-bot", "type": "User"},
	} {
		body := ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff+"\n/use 3", "MEMBER"), "sender": sender})
		d, err := r.Route("issue_comment", "d", body)
		if err != nil {
			t.Fatal(err)
		}
		if !d.IgnoredSender || len(d.Jobs) != 0 {
			t.Errorf("sender %v: ignored=%v jobs=%d", sender, d.IgnoredSender, len(d.Jobs))
		}
	}
}

// A bot deleting a sign-off still withdraws it; nothing else it does counts.
func TestRouteBotWithdraws(t *testing.T) {
	bot := map[string]any{"login": "mod-bot[bot]", "type": "Bot"}
	body := ev("deleted", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff+"\n/use 3", "MEMBER"), "sender": bot})
	d, err := Router{}.Route("issue_comment", "d", body)
	if err != nil {
		t.Fatal(err)
	}
	want := withdraw("issuecomment-5", "deleted")
	want.ActorLogin = "mod-bot[bot]"
	if d.IgnoredSender || !reflect.DeepEqual(d.Jobs, []jobs.Args{want}) {
		t.Errorf("bot deletion: ignored=%v jobs=%#v", d.IgnoredSender, d.Jobs)
	}
}

func TestRouteCustomPhrase(t *testing.T) {
	r := Router{Phrase: "Reviewed-by-owner"}
	d, err := r.Route("issue_comment", "d", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, "Reviewed-by-owner: yes", "MEMBER")}))
	if err != nil || len(d.Jobs) != 1 {
		t.Fatalf("custom phrase: %v, %d jobs", err, len(d.Jobs))
	}
	d, _ = r.Route("issue_comment", "d", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff, "MEMBER")}))
	if len(d.Jobs) != 0 {
		t.Fatal("default phrase still triggers under a custom phrase")
	}
}

func TestRouteMalformed(t *testing.T) {
	for _, body := range []string{``, `{`, `[]`, `{"action":"created"}`, `{"repository":{"full_name":""}}`, `{"repository":"x"}`} {
		_, err := Router{}.Route("issue_comment", "d", []byte(body))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: err = %v, want ErrMalformed", body, err)
		}
	}
}

func TestDecisionMetadata(t *testing.T) {
	d, err := Router{}.Route("pull_request_review", "d", ev("submitted", map[string]any{"pull_request": pr(12), "review": map[string]any{"id": 9, "body": signOff, "user": map[string]any{"login": "bob"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Repo != repo || d.PR != 12 || d.HeadSHA != "abc123" || d.Action != "submitted" || d.Sender != "alice" {
		t.Fatalf("decision = %+v", d)
	}
}

func FuzzRoute(f *testing.F) {
	f.Add("issue_comment", string(ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, signOff+"\n/use 1\n/verdict recheck", "MEMBER")})))
	f.Add("pull_request", string(ev("opened", map[string]any{"number": 12, "pull_request": pr(12)})))
	f.Add("pull_request_review", `{"repository":{"full_name":"a/b"},"review":{"id":1,"body":null}}`)
	f.Fuzz(func(t *testing.T, event, body string) {
		d, err := Router{}.Route(event, "d", []byte(body))
		if err != nil {
			return
		}
		for _, j := range d.Jobs {
			if v, ok := j.(jobs.VerifyArgs); ok && !v.SignOff.IsZero() && !validKey.MatchString(v.SignOff.Key()) {
				t.Fatalf("invalid sign-off key %q", v.SignOff.Key())
			}
		}
	})
}

var validKey = regexp.MustCompile(`^(issuecomment-|pullrequestreview-|discussion_r)[1-9][0-9]*$`)

// TestHandlesMatchesTheManifest: the App subscribes to exactly the events
// the table routes, so adding an event is one entry and one subscription.
func TestHandlesMatchesTheManifest(t *testing.T) {
	var m struct {
		Events []string `yaml:"default_events"`
	}
	if err := yaml.Unmarshal(deploy.AppManifest, &m); err != nil {
		t.Fatal(err)
	}
	slices.Sort(m.Events)
	if got := Handles(); !slices.Equal(got, m.Events) {
		t.Errorf("Handles() = %v, deploy/app-manifest.yml subscribes to %v", got, m.Events)
	}
	for _, event := range Handles() {
		if d, _ := (Router{}).Route(event, "d", []byte(`{}`)); d.Unhandled {
			t.Errorf("%s is listed but not routed", event)
		}
	}
	if d, err := (Router{}).Route("push", "d", []byte(`not json`)); err != nil || !d.Unhandled {
		t.Errorf("push: %+v, %v; want unhandled without parsing", d, err)
	}
}

// TestRefusedCommandsSayWhy: a command the router does not obey carries a
// reason for the log; an obeyed one and ordinary text carry none.
func TestRefusedCommandsSayWhy(t *testing.T) {
	tests := []struct {
		name, body, assoc string
		want              *regexp.Regexp // nil: nothing refused
	}{
		{"outsider recheck", "/verdict recheck", "CONTRIBUTOR", regexp.MustCompile(`^/verdict recheck by \S+: author association CONTRIBUTOR is not one of OWNER, MEMBER, COLLABORATOR$`)},
		{"recheck of another PR", "/verdict recheck https://github.com/SemiAnalysisAI/InferenceX/pull/13#issuecomment-31", "OWNER", regexp.MustCompile(`the URL does not name a sign-off of this PR$`)},
		{"obeyed recheck", "/verdict recheck", "MEMBER", nil},
		{"outsider plain text", "thanks for the PR", "CONTRIBUTOR", nil},
		{"outsider quoted recheck", "> /verdict recheck", "CONTRIBUTOR", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Router{}.Route("issue_comment", "d", ev("created", map[string]any{"issue": prIssue(), "comment": cmt(5, tc.body, tc.assoc)}))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want == nil && len(d.Refused) != 0:
				t.Fatalf("refused %q", d.Refused)
			case tc.want != nil && (len(d.Refused) != 1 || !tc.want.MatchString(d.Refused[0])):
				t.Fatalf("refused %q, want one matching %s", d.Refused, tc.want)
			}
		})
	}
}
