package githubtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

func strictFixture() *fixture.Fixture {
	fx := fixture.New("verdict")
	fx.Tokens = map[string]string{"ghp_alice": "alice"}
	tr := fx.Tree("t").Put("small.txt", "ok\n").Put("big.bin", strings.Repeat("x", 2<<20))
	for i := range 1005 {
		tr.Put(fmt.Sprintf("many/f%04d", i), "y\n")
	}
	r := fx.Repo("acme/bench")
	sha := r.Commit("c", "t")
	r.Branch("main", "c")
	r.Pull(&fixture.Pull{Number: 1, Head: fixture.Ref{Commit: sha}, Files: []*fixture.File{{Filename: "small.txt", Patch: "@@ -0,0 +1 @@\n+ok"}}})
	return fx
}

func TestStrictLikeGitHub(t *testing.T) {
	s := New(t, strictFixture())
	sha := s.Fixture().SHA("acme/bench", "c")
	tests := []struct {
		name, method, path, token, accept, body string
		status                                  int
		want                                    string
	}{
		{"anonymous read", "GET", "/repos/acme/bench", "", "", "", 200, `"full_name":"acme/bench"`},
		{"anonymous write", "POST", "/repos/acme/bench/issues/1/comments", "", "", `{"body":"x"}`, 401, "Requires authentication"},
		{"unknown token", "GET", "/repos/acme/bench", "tok-123", "", "", 401, "Bad credentials"},
		{"personal token writes as its user", "POST", "/repos/acme/bench/issues/1/comments", "ghp_alice", "", `{"body":"x"}`, 201, `"login":"alice"`},
		{"installation writes as the bot", "POST", "/repos/acme/bench/issues/1/comments", s.InstallationToken(), "", `{"body":"x"}`, 201, `"login":"verdict[bot]"`},
		{"check run by a personal token", "POST", "/repos/acme/bench/check-runs", "ghp_alice", "", `{"name":"n","head_sha":"` + sha + `"}`, 403, "You must authenticate via a GitHub App."},
		{"check run by the App", "POST", "/repos/acme/bench/check-runs", s.InstallationToken(), "", `{"name":"n","head_sha":"` + sha + `"}`, 201, `"slug":"verdict"`},
		{"user of a personal token", "GET", "/user", "ghp_alice", "", "", 200, `"login":"alice"`},
		{"user of an installation", "GET", "/user", s.InstallationToken(), "", "", 403, "Resource not accessible by integration"},
		{"2 MiB file, default media type", "GET", "/repos/acme/bench/contents/big.bin?ref=" + sha, "", "", "", 403, `"code":"too_large"`},
		{"2 MiB file, object media type", "GET", "/repos/acme/bench/contents/big.bin?ref=" + sha, "", "application/vnd.github.object", "", 200, `"encoding":"none"`},
		{"2 MiB file, raw media type", "GET", "/repos/acme/bench/contents/big.bin?ref=" + sha, "", "application/vnd.github.raw", "", 200, "xxxxxxxx"},
		{"filter must be latest or all", "GET", "/repos/acme/bench/commits/" + sha + "/check-runs?filter=newest", "", "", "", 422, "filter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, s.URL+tt.path, bytes.NewReader([]byte(tt.body)))
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
				t.Errorf("%s %s = %d %.200s, want %d with %q", tt.method, tt.path, resp.StatusCode, b, tt.status, tt.want)
			}
		})
	}
}

func TestListingCaps(t *testing.T) {
	s := New(t, strictFixture())
	sha := s.Fixture().SHA("acme/bench", "c")
	c := s.Client()
	_, dir, _, err := c.Repositories.GetContents(t.Context(), "acme", "bench", "many", nil)
	if err != nil || len(dir) != 1000 {
		t.Errorf("contents listing: %d entries, %v; want the first 1,000", len(dir), err)
	}
	root, _, err := c.Git.GetTree(t.Context(), "acme", "bench", sha, true)
	if err != nil || len(root.Entries) != 1005+3 || root.GetTruncated() {
		t.Errorf("recursive tree: %d entries, truncated %v, %v", len(root.Entries), root.GetTruncated(), err)
	}
}
