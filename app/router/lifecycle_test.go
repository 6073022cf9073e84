package router

import (
	"reflect"
	"testing"

	"github.com/verdict-bot/verdict/app/jobs"
)

// repoID is the id of the test repository in check payloads.
const repoID = 900

func checkEv(kind, action string, obj map[string]any) []byte {
	return ev(action, map[string]any{
		"repository": map[string]any{"id": repoID, "full_name": "SemiAnalysisAI/InferenceX", "name": "InferenceX", "owner": map[string]any{"login": "SemiAnalysisAI"}},
		kind:         obj,
	})
}

func pulls(baseRepo int64, numbers ...int) []map[string]any {
	var out []map[string]any
	for _, n := range numbers {
		out = append(out, map[string]any{"number": n, "base": map[string]any{"repo": map[string]any{"id": baseRepo}}})
	}
	return out
}

func run(ext any, app string, prs []map[string]any) map[string]any {
	return map[string]any{"id": 77, "name": "Verdict / sign-off", "head_sha": "abc123", "external_id": ext,
		"app": map[string]any{"id": 1, "slug": app}, "pull_requests": prs}
}

func withSHA(run map[string]any, sha string) map[string]any {
	run["head_sha"] = sha
	return run
}

func rerun(key string, pr int) jobs.VerifyArgs {
	return jobs.VerifyArgs{Repo: repo, PR: pr, SignOff: ref(key), ActorLogin: "alice", ActorType: "User", DeliveryID: "d", Action: "rerun", Manual: true}
}

func TestRouteLifecycle(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name      string
		event     string
		body      []byte
		unhandled bool
		want      []jobs.Args
	}{
		{"re-run of our check run", "check_run", checkEv("check_run", "rerequested", run("issuecomment-5@"+sha, "verdict", pulls(repoID, 12))),
			false, []jobs.Args{rerun("issuecomment-5", 12)}},
		{"re-run on two PRs of the commit", "check_run", checkEv("check_run", "rerequested", run("pullrequestreview-9@"+sha, "verdict", pulls(repoID, 12, 14))),
			false, []jobs.Args{rerun("pullrequestreview-9", 12), rerun("pullrequestreview-9", 14)}},
		{"re-run names another repository's PR", "check_run", checkEv("check_run", "rerequested", run("issuecomment-5@"+sha, "verdict", pulls(901, 12))), false, nil},
		{"re-run without a PR and a malformed head", "check_run", checkEv("check_run", "rerequested", run("issuecomment-5@"+sha, "verdict", nil)), false, nil},
		{"re-run without a PR (a fork's, an older head)", "check_run", checkEv("check_run", "rerequested", withSHA(run("issuecomment-5@"+sha, "verdict", nil), sha)),
			false, []jobs.Args{jobs.RerunArgs{Repo: repo, HeadSHA: sha, SignOff: ref("issuecomment-5"), ActorLogin: "alice", ActorType: "User", DeliveryID: "d"}}},
		{"suite re-run without a PR", "check_suite", checkEv("check_suite", "rerequested", map[string]any{"id": 3, "head_sha": sha,
			"app": map[string]any{"slug": "verdict"}, "pull_requests": nil}),
			false, []jobs.Args{jobs.RerunArgs{Repo: repo, HeadSHA: sha, ActorLogin: "alice", ActorType: "User", DeliveryID: "d"}}},
		{"re-run of another App's run", "check_run", checkEv("check_run", "rerequested", run("issuecomment-5@"+sha, "ci-bot", pulls(repoID, 12))), false, nil},
		{"re-run without external id", "check_run", checkEv("check_run", "rerequested", run(nil, "verdict", pulls(repoID, 12))), false, nil},
		{"re-run with a foreign external id", "check_run", checkEv("check_run", "rerequested", run("build-7", "verdict", pulls(repoID, 12))), false, nil},
		{"re-run with a bad key", "check_run", checkEv("check_run", "rerequested", run("issuecomment-0@"+sha, "verdict", pulls(repoID, 12))), false, nil},
		{"check run completed", "check_run", checkEv("check_run", "completed", run("issuecomment-5@"+sha, "verdict", pulls(repoID, 12))), true, nil},
		{"check run created", "check_run", checkEv("check_run", "created", run("issuecomment-5@"+sha, "verdict", pulls(repoID, 12))), true, nil},
		{"re-run of our suite", "check_suite", checkEv("check_suite", "rerequested", map[string]any{"id": 3, "head_sha": "abc123",
			"app": map[string]any{"slug": "verdict"}, "pull_requests": pulls(repoID, 12)}), false, []jobs.Args{rerun("", 12)}},
		{"suite requested", "check_suite", checkEv("check_suite", "requested", map[string]any{"id": 3, "head_sha": "abc123",
			"app": map[string]any{"slug": "verdict"}, "pull_requests": pulls(repoID, 12)}), true, nil},
	}
	r := Router{AppSlug: "verdict"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := r.Route(tc.event, "d", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if d.Unhandled != tc.unhandled {
				t.Errorf("unhandled = %v, want %v", d.Unhandled, tc.unhandled)
			}
			if !reflect.DeepEqual(d.Jobs, tc.want) {
				t.Fatalf("jobs:\n got %#v\nwant %#v", d.Jobs, tc.want)
			}
		})
	}
}

// A push moves the head whoever pushed: a bot's push marks the verdicts
// too, while a bot's re-run request is still ignored.
func TestRoutePushByBot(t *testing.T) {
	bot := map[string]any{"login": "github-actions[bot]", "type": "Bot"}
	d, err := Router{}.Route("pull_request", "d", ev("synchronize", map[string]any{"number": 12, "pull_request": pr(12), "sender": bot}))
	if err != nil || d.IgnoredSender || len(d.Jobs) != 1 {
		t.Fatalf("bot push: ignored=%v jobs=%v err=%v", d.IgnoredSender, d.Jobs, err)
	}
	body := checkEv("check_run", "rerequested", run("issuecomment-5@abc", "", pulls(repoID, 12)))
	d, _ = Router{}.Route("check_run", "d", []byte(string(body[:len(body)-1])+`,"sender":{"login":"x[bot]","type":"Bot"}}`))
	if !d.IgnoredSender || len(d.Jobs) != 0 {
		t.Fatalf("bot re-run: ignored=%v jobs=%v", d.IgnoredSender, d.Jobs)
	}
}

func TestActs(t *testing.T) {
	for _, tc := range []struct {
		event, action string
		want          bool
	}{
		{"issue_comment", "created", true},
		{"pull_request", "synchronize", true},
		{"pull_request", "labeled", true}, // stored (ignored) when it comes: redelivered too
		{"check_run", "rerequested", true},
		{"check_run", "completed", false},
		{"check_suite", "rerequested", true},
		{"check_suite", "requested", false},
		{"push", "", false},
	} {
		if got := Acts(tc.event, tc.action); got != tc.want {
			t.Errorf("Acts(%s, %s) = %v, want %v", tc.event, tc.action, got, tc.want)
		}
	}
}

// With the App's ID known, a re-run is ours only when the run's App has
// that ID, whatever the slug says; without an ID or a slug it is trusted.
func TestReRunIsOursByAppID(t *testing.T) {
	sha := "abc123"
	withApp := func(app map[string]any) []byte {
		r := run("issuecomment-5@"+sha, "verdict", pulls(repoID, 12))
		r["app"] = app
		return checkEv("check_run", "rerequested", r)
	}
	for _, tc := range []struct {
		name   string
		router Router
		app    map[string]any
		ours   bool
	}{
		{"same ID", Router{AppID: 7}, map[string]any{"id": 7, "slug": "other"}, true},
		{"another App's ID, our slug", Router{AppID: 7, AppSlug: "verdict"}, map[string]any{"id": 8, "slug": "verdict"}, false},
		{"no ID known, slug matches", Router{AppSlug: "verdict"}, map[string]any{"id": 8, "slug": "verdict"}, true},
		{"nothing known", Router{}, map[string]any{"id": 8, "slug": "x"}, true},
	} {
		d, err := tc.router.Route("check_run", "d", withApp(tc.app))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(d.Jobs) == 1; got != tc.ours {
			t.Errorf("%s: acted = %v, want %v", tc.name, got, tc.ours)
		}
	}
}
