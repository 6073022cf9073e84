package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghapi"
	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/ghsource"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/verify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

const (
	sampleRepo = "SemiAnalysisAI/InferenceX"
	samplePR   = 3412
	sampleKey  = "pullrequestreview-3900000001"
)

func loadSample(t testing.TB) *fixture.Fixture {
	t.Helper()
	fx, err := fixture.Load(filepath.Join("..", "..", "testdata", "fixtures", "sample-e2e-agentic"))
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

func newTestVerifier() *verify.Verifier {
	return &verify.Verifier{
		Presets:   []*checks.Preset{inferencex.Preset, checklist.Preset},
		Publisher: publish.Verdicts{},
		BotLogins: []string{"verdict[bot]"},
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// client is the production GitHub client over the fake, authenticated as
// the fixture's installation, reading published pages from the fixture.
func client(t testing.TB, srv *githubtest.Server) *ghapi.Client {
	t.Helper()
	return clientWith(t, srv, ghsource.Options{})
}

// clientWith is client with the evidence sources opened with opts.
func clientWith(t testing.TB, srv *githubtest.Server, opts ghsource.Options) *ghapi.Client {
	t.Helper()
	opts.PageClient = srvPageClient(srv)
	return ghapi.New(rest(t, srv), opts)
}

// rest is the go-github client under client.
func rest(t testing.TB, srv *githubtest.Server) *github.Client {
	t.Helper()
	gh, err := ghclient.NewToken(srv.BaseURL(), srv.InstallationToken())
	if err != nil {
		t.Fatal(err)
	}
	return gh
}

func sampleRequest() verify.Request {
	return verify.Request{Owner: "SemiAnalysisAI", Repo: "InferenceX", Number: samplePR, Explicit: true, SkipActor: true,
		ReviewDate: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
}

func TestVerifySampleIsDeterministic(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	v := newTestVerifier()
	gh := client(t, srv)
	first, err := v.Verify(context.Background(), gh, sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != verify.Verified || first.Verdict.Key != sampleKey {
		t.Fatalf("outcome = %s %s", first.Status, first.Verdict.Key)
	}
	if len(first.Verdict.Rows) != 16 {
		t.Fatalf("%d rows, want 16", len(first.Verdict.Rows))
	}
	// The sample PR changes one config, which the verdict names.
	if got := strings.Join(first.Verdict.AffectedConfigs, " "); got != "qwen3.5-fp8-mi355x-sglang-agentic-mtp" {
		t.Errorf("affected configs = %q", got)
	}
	second, err := v.Verify(context.Background(), gh, sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if first.Markdown != second.Markdown {
		t.Error("two verifications of the same evidence differ")
	}
	if len(srv.Writes()) != 0 {
		t.Errorf("a read-only verification wrote %d times", len(srv.Writes()))
	}
}

func TestVerifyPublishesOnceAndReplaysQuietly(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	v := newTestVerifier()
	gh := client(t, srv)
	req := sampleRequest()
	req.Publish = true
	out, err := v.Verify(context.Background(), gh, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.CommentURL, "#issuecomment-") {
		t.Errorf("comment URL = %q", out.CommentURL)
	}
	head := srv.Statuses(sampleRepo, "head")
	if len(head) == 0 || head[0].GetContext() != "codeowner-signoff-verify" || head[0].GetState() == "pending" {
		t.Fatalf("statuses on H = %+v", head)
	}
	comments := func() int {
		n := 0
		for _, c := range srv.Comments(sampleRepo, samplePR) {
			if strings.HasPrefix(c.Body, "<!-- codeowner-signoff-verify signoff="+sampleKey+" -->\n") {
				n++
			}
		}
		return n
	}
	if comments() != 1 {
		t.Fatalf("%d verdict comments", comments())
	}
	if _, err := v.Verify(context.Background(), gh, req); err != nil {
		t.Fatal(err)
	}
	if comments() != 1 {
		t.Errorf("replay duplicated the verdict: %d comments", comments())
	}
}

func TestVerifyGates(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(fx *fixture.Fixture)
		req    func(r *verify.Request)
		// signOff is a key or URL the request names, read as verdict check
		// reads its --signoff flag.
		signOff string
		status  verify.Status
		err     string
	}{
		{name: "draft PR is skipped for events", mutate: func(fx *fixture.Fixture) { fx.Repos[0].Pulls[0].Draft = true },
			req: func(r *verify.Request) { r.Explicit = false }, status: verify.Skipped},
		{name: "draft PR is verified when explicit", mutate: func(fx *fixture.Fixture) { fx.Repos[0].Pulls[0].Draft = true },
			status: verify.Verified},
		{name: "read-only actor is skipped", req: func(r *verify.Request) { r.SkipActor, r.Actor = false, "amd-dev-x" }, status: verify.Skipped},
		{name: "bot actor is skipped", req: func(r *verify.Request) { r.SkipActor, r.Actor, r.ActorType = false, "ci[bot]", "Bot" }, status: verify.Skipped},
		{name: "write actor passes", req: func(r *verify.Request) { r.SkipActor, r.Actor = false, "amd-owner-b" }, status: verify.Verified},
		{name: "files owned only by core and admins need no sign-off", mutate: func(fx *fixture.Fixture) {
			admin := fixture.Permission{Permission: "admin", RoleName: "admin"}
			fx.Repos[0].Collaborators["amd-owner-a"], fx.Repos[0].Collaborators["amd-owner-b"] = admin, admin
		}, status: verify.NotRequired},
		// Not exempt, so the scope gate lets it through (NotRequired would
		// stop it there); then the signer fails the trigger-actor rule, which
		// every sign-off author must pass.
		{name: "an admin-equivalent custom role does not exempt", mutate: func(fx *fixture.Fixture) {
			custom := fixture.Permission{Permission: "admin", RoleName: "release-admin"}
			fx.Repos[0].Collaborators["amd-owner-a"], fx.Repos[0].Collaborators["amd-owner-b"] = custom, custom
		}, signOff: "pullrequestreview-3900000001", status: verify.Skipped},
		{name: "a sign-off by a read-only account is none", mutate: func(fx *fixture.Fixture) {
			fx.Repos[0].Collaborators["amd-owner-a"] = fixture.Permission{Permission: "read", RoleName: "read"}
		}, signOff: "pullrequestreview-3900000001", status: verify.Skipped},
		{name: "CODEOWNERS errors at the base tip stop the scope gate", mutate: func(fx *fixture.Fixture) {
			// Even when every owner is exempt: GitHub ignores the broken line,
			// so the ownership the gate would decide on is not GitHub's.
			admin := fixture.Permission{Permission: "admin", RoleName: "admin"}
			fx.Repos[0].Collaborators["amd-owner-a"], fx.Repos[0].Collaborators["amd-owner-b"] = admin, admin
			fx.Repos[0].CodeownersErrors = map[string][]fixture.CodeownersError{"main": {{
				Line: 5, Column: 40, Kind: "Unknown owner", Path: ".github/CODEOWNERS",
				Source:  "inferencex-e2e/configs/amd-master.yaml @amd-owner-a @amd-owner-b",
				Message: "Unknown owner on line 5: make sure @amd-owner-b exists and has write access to the repository",
			}}}
		}, err: "has 1 error(s) reported by GitHub (line 5: Unknown owner"},
		{name: "URL of another PR is refused", signOff: "https://github.com/SemiAnalysisAI/InferenceX/pull/12#issuecomment-99", err: "names PR #12"},
		{name: "unknown key", signOff: "issuecomment-77", err: "reading sign-off comment 77"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := loadSample(t)
			if tt.mutate != nil {
				tt.mutate(fx)
			}
			srv := githubtest.New(t, fx)
			req := sampleRequest()
			if tt.req != nil {
				tt.req(&req)
			}
			var err error
			var out verify.Outcome
			if tt.signOff != "" {
				req.SignOff, err = verify.ParseSignOffRef(tt.signOff, req.Owner, req.Repo, req.Number)
			}
			var logs bytes.Buffer
			if err == nil {
				v := newTestVerifier()
				v.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
				out, err = v.Verify(context.Background(), client(t, srv), req)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.status {
				t.Fatalf("status = %s (%s), want %s", out.Status, out.SkipReason, tt.status)
			}
			// A refusal is visible: one info line with the reason and the actor.
			var refusals []map[string]any
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "not verified" {
					refusals = append(refusals, m)
				}
			}
			want := 0
			if out.Status == verify.Skipped {
				want = 1
			}
			if len(refusals) != want {
				t.Fatalf("%d refusal lines, want %d:\n%s", len(refusals), want, logs.String())
			}
			if want == 1 {
				m := refusals[0]
				if m["level"] != "INFO" || m["reason"] != out.SkipReason || m["actor"] != req.Actor || m["repo"] != sampleRepo || m["signoff"] != sampleKey {
					t.Fatalf("refusal line %v, want INFO with reason %q, actor %q, repo and signoff", m, out.SkipReason, req.Actor)
				}
			}
		})
	}
}

func TestNoSignOff(t *testing.T) {
	fx := loadSample(t)
	fx.Repos[0].Pulls[0].Reviews = nil
	srv := githubtest.New(t, fx)
	_, err := newTestVerifier().Verify(context.Background(), client(t, srv), sampleRequest())
	if !errors.Is(err, verify.ErrNoSignOff) {
		t.Fatalf("err = %v, want verify.ErrNoSignOff", err)
	}
}

func TestParseSignOffRef(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "issuecomment-5", want: "issuecomment-5"},
		{in: "pullrequestreview-9", want: "pullrequestreview-9"},
		{in: "discussion_r3", want: "discussion_r3"},
		{in: "https://github.com/o/r/pull/7#issuecomment-5", want: "issuecomment-5"},
		{in: "https://github.com/O/R/pull/7/files#discussion_r3", want: "discussion_r3"},
		{in: "https://ghes.example.com/o/r/pull/7#pullrequestreview-9", want: "pullrequestreview-9"},
		{in: "https://github.com/o/other/pull/7#issuecomment-5", err: "names o/other"},
		{in: "https://github.com/o/r/pull/8#issuecomment-5", err: "names PR #8"},
		{in: "issuecomment-0", err: "neither"},
		{in: "https://github.com/o/r/pull/7#issuecomment-5x", err: "neither"},
	}
	for _, tt := range tests {
		got, err := verify.ParseSignOffRef(tt.in, "o", "r", 7)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got.Key() != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got.Key(), err, tt.want)
		}
	}
}

// TestEvidenceIsReadOnce: one verification fetches every file, listing,
// run and artifact at most once. The PR itself is read on purpose three
// times (pin, the scope gate's consistency check, the head-advanced check).
func TestEvidenceIsReadOnce(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	if _, err := newTestVerifier().Verify(context.Background(), client(t, srv), sampleRequest()); err != nil {
		t.Fatal(err)
	}
	pull := "GET /repos/SemiAnalysisAI/InferenceX/pulls/3412"
	for path, n := range srv.URICallCounts() {
		if path == pull {
			if n > 3 {
				t.Errorf("%s requested %d times, want at most 3", path, n)
			}
			continue
		}
		if n > 1 {
			t.Errorf("%s requested %d times in one verification", path, n)
		}
	}
}

// TestServerWithoutOptionalEndpoints: a GitHub-compatible server that lacks
// the CODEOWNERS diagnostics, review-comment and team endpoints still gets
// a verdict; the missing evidence is noted, nothing passes because of it.
func TestServerWithoutOptionalEndpoints(t *testing.T) {
	srv := githubtest.New(t, loadSample(t))
	for _, p := range []string{`/codeowners/errors$`, `/pulls/3412/comments$`, `^/orgs/`} {
		srv.AddFault(githubtest.Fault{Method: "GET", Path: p, Status: 404})
	}
	out, err := newTestVerifier().Verify(context.Background(), client(t, srv), sampleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != verify.Verified || len(out.Verdict.Rows) != 16 {
		t.Fatalf("status %s with %d rows", out.Status, len(out.Verdict.Rows))
	}
	if len(out.Scope.Problems) == 0 || !strings.Contains(out.Scope.Problems[0], "diagnostics unavailable") {
		t.Errorf("scope problems = %v, want the missing diagnostics noted", out.Scope.Problems)
	}
}
