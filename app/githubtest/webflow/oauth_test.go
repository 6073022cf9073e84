package webflow_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/webflow"
)

func oauthServer(t *testing.T) *githubtest.Server {
	t.Helper()
	fx := fixture.New("verdict")
	fx.Tree("t").Put("a.txt", "a\n")
	r := fx.Repo("acme/secret")
	r.Private = true
	r.Commit("c", "t")
	r.Branch("main", "c")
	r.Collaborators = map[string]fixture.Permission{"reader": {Permission: "read", RoleName: "read"}}
	s := githubtest.New(t, fx)
	s.OAuth().SetApp(webflow.OAuthApp{ClientID: "Iv1.abc", ClientSecret: "shh", CallbackURL: "http://app.example/auth"})
	return s
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorize follows the browser to /login/oauth/authorize and returns where
// GitHub sends it back.
func authorize(t *testing.T, s *githubtest.Server, q url.Values) (*http.Response, *url.URL) {
	t.Helper()
	resp, err := noRedirect.Get(s.URL + "/login/oauth/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := resp.Location()
	return resp, loc
}

func exchange(t *testing.T, s *githubtest.Server, form url.Values, accept string) map[string]string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/login/oauth/access_token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("access_token: %d %s", resp.StatusCode, body)
	}
	out := map[string]string{}
	if accept == "application/json" {
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("JSON answer %q: %v", body, err)
		}
		return out
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		t.Fatal(err)
	}
	for k := range v {
		out[k] = v.Get(k)
	}
	return out
}

func TestOAuthWebFlow(t *testing.T) {
	s := oauthServer(t)
	q := url.Values{"client_id": {"Iv1.abc"}, "redirect_uri": {"http://app.example/auth/callback"}, "state": {"st4te"}}

	if resp, _ := authorize(t, s, url.Values{"client_id": {"other"}}); resp.StatusCode != 404 {
		t.Errorf("unknown client: %d", resp.StatusCode)
	}
	if resp, _ := authorize(t, s, q); resp.StatusCode != 200 {
		t.Errorf("signed-out browser: %d, want the sign-in page", resp.StatusCode)
	}
	bad := url.Values{"client_id": {"Iv1.abc"}, "redirect_uri": {"http://evil.example/auth/callback"}, "state": {"x"}}
	if _, loc := authorize(t, s, bad); loc == nil || loc.Host != "app.example" || loc.Query().Get("error") != "redirect_uri_mismatch" {
		t.Errorf("foreign redirect_uri sent the browser to %v", loc)
	}

	s.OAuth().SetBrowserUser("reader")
	resp, loc := authorize(t, s, q)
	if resp.StatusCode != http.StatusFound || loc.Path != "/auth/callback" || loc.Query().Get("state") != "st4te" || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %d → %v", resp.StatusCode, loc)
	}
	code := loc.Query().Get("code")
	form := url.Values{"client_id": {"Iv1.abc"}, "client_secret": {"wrong"}, "code": {code}, "redirect_uri": {q.Get("redirect_uri")}}
	if got := exchange(t, s, form, "application/json"); got["error"] != "incorrect_client_credentials" {
		t.Errorf("wrong secret: %v", got)
	}
	form.Set("client_secret", "shh")
	got := exchange(t, s, form, "application/json")
	tok := got["access_token"]
	if !strings.HasPrefix(tok, "gho_") || got["token_type"] != "bearer" {
		t.Fatalf("token answer %v", got)
	}
	if again := exchange(t, s, form, ""); again["error"] != "bad_verification_code" {
		t.Errorf("a code used twice: %v", again)
	}

	// The token is the user's: it reads the private repository they may read.
	get := func(path, token string) int {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get("/repos/acme/secret", tok); c != 200 {
		t.Errorf("collaborator reading the private repository: %d", c)
	}
	if c := get("/repos/acme/secret", ""); c != 404 {
		t.Errorf("anonymous reading the private repository: %d", c)
	}
	if c := get("/repos/acme/secret", s.InstallationToken()); c != 200 {
		t.Errorf("the installation reading the private repository: %d", c)
	}

	// Someone else signed in: a token, but no access.
	s.OAuth().SetBrowserUser("stranger")
	_, loc = authorize(t, s, q)
	form.Set("code", loc.Query().Get("code"))
	other := exchange(t, s, form, "")["access_token"]
	if c := get("/repos/acme/secret", other); other == "" || c != 404 {
		t.Errorf("stranger's token %q reading the private repository: %d", other, c)
	}
}
