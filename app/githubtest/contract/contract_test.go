package contract

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

func descriptions(t *testing.T) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Skipf("contract: %v", err)
	}
	return dir
}

var rest struct {
	once sync.Once
	d    *REST
	err  error
}

func loadREST(t *testing.T) *REST {
	t.Helper()
	dir := descriptions(t)
	rest.once.Do(func() { rest.d, rest.err = LoadREST(dir) })
	if rest.err != nil {
		t.Fatal(rest.err)
	}
	return rest.d
}

// Every REST operation the fake serves, and so every one Verdict calls,
// exists on github.com, GitHub Enterprise Cloud and the supported GitHub
// Enterprise Server releases.
func TestEveryRouteExistsInEveryDescription(t *testing.T) {
	dir := descriptions(t)
	for _, file := range []string{"api.github.com.json", "ghec.json", "ghes-3.17.json", "ghes-3.19.json"} {
		t.Run(file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "node_modules/@octokit/openapi/generated", file))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Paths map[string]map[string]json.RawMessage `json:"paths"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			shapes := map[string]bool{}
			for p, ops := range doc.Paths {
				for m := range ops {
					shapes[strings.ToUpper(m)+" "+paramRE.ReplaceAllString(p, "{}")] = true
				}
			}
			for _, name := range githubtest.Routes() {
				if internalRoutes[name] {
					continue
				}
				shape := paramRE.ReplaceAllString(name, "{}")
				shape = strings.Replace(strings.TrimSuffix(shape, "/contents"), "/artifacts/{}/zip", "/artifacts/{}/{}", 1)
				if strings.HasSuffix(name, "/contents") {
					shape += "/contents/{}"
				}
				if !shapes[shape] {
					t.Errorf("%s: no %s", file, name)
				}
			}
		})
	}
}

func sampleServer(t *testing.T) *githubtest.Server {
	fx, err := fixture.Load("../../../testdata/fixtures/sample-e2e-agentic")
	if err != nil {
		t.Fatal(err)
	}
	return githubtest.New(t, fx)
}

// The check can fail: an answer missing a required field, or with a
// status the operation does not have, is reported with where and what.
func TestCheckReportsViolations(t *testing.T) {
	d := loadREST(t)
	good := githubtest.Exchange{Route: "GET /repos/{owner}/{repo}/codeowners/errors", Params: map[string]string{"owner": "o", "repo": "r"},
		Method: "GET", Path: "/repos/o/r/codeowners/errors", RequestHeader: http.Header{}, Status: 200,
		Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}},
		Body:   []byte(`{"errors":[{"line":3,"column":1,"kind":"Unknown owner","message":"m","path":".github/CODEOWNERS"}]}`)}
	if err := d.Check(good); err != nil {
		t.Fatalf("a conforming answer: %v", err)
	}
	tests := map[string]struct {
		mod  func(*githubtest.Exchange)
		want string
	}{
		"missing field": {func(e *githubtest.Exchange) {
			e.Body = []byte(`{"errors":[{"line":3,"kind":"k","message":"m","path":"p"}]}`)
		},
			`/errors/0/column: property "column" is missing`},
		"wrong type":                {func(e *githubtest.Exchange) { e.Body = []byte(`{"errors":"none"}`) }, "/errors"},
		"undeclared success status": {func(e *githubtest.Exchange) { e.Status = 201 }, "status is not supported"},
		"error without a message":   {func(e *githubtest.Exchange) { e.Status, e.Body = 418, []byte(`{}`) }, "message"},
		"bad query parameter": {func(e *githubtest.Exchange) {
			e.Route, e.Path, e.Query, e.Params = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
				"/repos/o/r/commits/main/check-runs", "filter=newest", map[string]string{"owner": "o", "repo": "r", "ref": "main"}
		}, "parameter filter"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			ex := good
			tt.mod(&ex)
			err := d.Check(ex)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want it to report %q", err, tt.want)
			}
		})
	}
}

// The fake's answers for the sample PR conform, errors included.
func TestSampleAnswersConform(t *testing.T) {
	d := loadREST(t)
	srv := sampleServer(t)
	var mu sync.Mutex
	var bad []string
	githubtest.Observe(func(ex githubtest.Exchange) {
		if err := d.Check(ex); err != nil {
			mu.Lock()
			bad = append(bad, err.Error())
			mu.Unlock()
		}
	})
	// contract.Main's observer is back once this test is done.
	t.Cleanup(func() { githubtest.Observe(nil) })
	head := srv.Fixture().SHA("SemiAnalysisAI/InferenceX", "head")
	c := srv.Client()
	for _, p := range []string{"/repos/SemiAnalysisAI/InferenceX", "/repos/SemiAnalysisAI/InferenceX/pulls/3412",
		"/repos/SemiAnalysisAI/InferenceX/pulls/3412/files", "/repos/SemiAnalysisAI/InferenceX/issues/3412/comments",
		"/repos/SemiAnalysisAI/InferenceX/contents/inferencex-e2e?ref=" + head,
		"/repos/SemiAnalysisAI/InferenceX/git/trees/" + head + "?recursive=1",
		"/repos/SemiAnalysisAI/InferenceX/commits/" + head + "/check-runs", "/repos/SemiAnalysisAI/InferenceX/pulls/9999",
		"/repos/SemiAnalysisAI/InferenceX/collaborators/amd-owner-a/permission", "/user"} {
		req, _ := c.NewRequest("GET", strings.TrimPrefix(p, "/"), nil)
		if _, err := c.Do(t.Context(), req, nil); err != nil && !regexp.MustCompile(`404|403`).MatchString(err.Error()) {
			t.Errorf("GET %s: %v", p, err)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d answers do not conform:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

func TestWebhookPayloads(t *testing.T) {
	dir := descriptions(t)
	w, err := LoadWebhooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := sampleServer(t)
	body := func(v map[string]any) []byte {
		b, _ := json.Marshal(v)
		return b
	}
	good := map[string][]byte{
		"issue_comment": body(srv.IssueCommentEvent("created", "SemiAnalysisAI/InferenceX", 3412,
			githubtest.EventComment{ID: 7, Body: "/verdict recheck", User: "maintainer-a", Association: "OWNER"}, "maintainer-a", "User")),
		"pull_request":             body(srv.PullRequestEvent("opened", "SemiAnalysisAI/InferenceX", 3412, "amd-dev-x")),
		"pull_request/synchronize": body(srv.PullRequestSynchronizeEvent("SemiAnalysisAI/InferenceX", 3412, "base", "amd-dev-x")),
		"check_suite":              body(srv.CheckSuiteEvent("rerequested", "SemiAnalysisAI/InferenceX", "head", "maintainer-a")),
		"pull_request_review": body(srv.PullRequestReviewEvent("submitted", "SemiAnalysisAI/InferenceX", 3412,
			githubtest.EventReview{ID: 8, Body: "LGTM", User: "amd-owner-a"}, "amd-owner-a")),
	}
	// Verdict's own check run, as the App creates it, then re-run.
	head := srv.Fixture().SHA("SemiAnalysisAI/InferenceX", "head")
	cr, _, err := srv.Client().Checks.CreateCheckRun(context.Background(), "SemiAnalysisAI", "InferenceX", github.CreateCheckRunOptions{
		Name: "Verdict / sign-off", HeadSHA: head, ExternalID: github.String("issuecomment-7@" + head), Status: github.String("completed"),
		Conclusion: github.String("failure"), Output: &github.CheckRunOutput{Title: github.String("REJECTED"), Summary: github.String("x")}})
	if err != nil {
		t.Fatal(err)
	}
	good["check_run"] = body(srv.CheckRunEvent("rerequested", "SemiAnalysisAI/InferenceX", cr.GetID(), "maintainer-a"))
	for event, payload := range good {
		event, _, _ = strings.Cut(event, "/")
		if err := w.Check(event, payload); err != nil {
			t.Errorf("%s: %v", event, err)
		}
	}
	minimal := []byte(`{"action":"created","comment":{"id":1,"body":"x"},"issue":{"number":1},"repository":{"full_name":"o/r"}}`)
	if err := w.Check("issue_comment", minimal); err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Errorf("a hand-made minimal payload passed: %v", err)
	}
	if err := w.Check("issue_comment", []byte(`{"action":"exploded"}`)); err == nil {
		t.Error("an unknown action passed")
	}
}
