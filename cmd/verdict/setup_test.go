package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/app/config"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/webflow"
	"github.com/verdict-bot/verdict/deploy"
)

type runningSetup struct {
	page   string
	key    string
	stdout *syncBuffer
	stderr *syncBuffer
	code   chan int
	cancel context.CancelFunc
}

// startSetup runs verdict setup in-process and waits for its page.
func startSetup(t *testing.T, args ...string) *runningSetup {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningSetup{stdout: &syncBuffer{}, stderr: &syncBuffer{}, code: make(chan int, 1), cancel: cancel}
	env := Env{Getenv: func(string) string { return "" }, Stdout: r.stdout, Stderr: r.stderr}
	go func() { r.code <- run(ctx, append([]string{"setup", "-listen", "127.0.0.1:0"}, args...), env) }()
	t.Cleanup(cancel)
	openRE := regexp.MustCompile(`open (http://\S+)/\?key=(\w+) in your browser`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := openRE.FindStringSubmatch(r.stderr.String()); m != nil {
			r.page, r.key = m[1], m[2]
			return r
		}
		select {
		case c := <-r.code:
			t.Fatalf("setup exited %d before serving its page: %s", c, r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("setup page never announced: %s", r.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *runningSetup) wait(t *testing.T) int {
	t.Helper()
	select {
	case c := <-r.code:
		return c
	case <-time.After(60 * time.Second):
		t.Fatal("setup did not finish")
		return -1
	}
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 30 * time.Second}

// TestSetupManifestFlow plays the browser through the whole flow against the
// fake GitHub (GHES-style base): the form carries deploy/app-manifest.yml's
// permissions and events and the flag's webhook URL, GitHub's redirect comes
// back with the state, the code is exchanged once, and the file it writes
// is what verdict serve loads.
func TestSetupManifestFlow(t *testing.T) {
	gh := githubtest.New(t, nil)
	out := filepath.Join(t.TempDir(), "verdict-app.env")
	s := startSetup(t, "-github-url", gh.URL+"/api/v3/", "-webhook-url", "https://verdict.example.com/webhook", "-org", "acme", "-name", "Verdict (acme)", "-out", out)

	// The page: a form posting the manifest to the organization's new-App URL.
	resp, err := http.Get(s.page + "/?key=" + s.key)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	action := regexp.MustCompile(`<form action="([^"]+)" method="post">`).FindSubmatch(body)
	value := regexp.MustCompile(`name="manifest" value="([^"]+)"`).FindSubmatch(body)
	if action == nil || value == nil {
		t.Fatalf("no manifest form on the page:\n%s", body)
	}
	formURL, err := url.Parse(html.UnescapeString(string(action[1])))
	if err != nil {
		t.Fatal(err)
	}
	if formURL.Path != "/organizations/acme/settings/apps/new" || formURL.Host != strings.TrimPrefix(gh.URL, "http://") {
		t.Errorf("form posts to %s, want the fake GitHub's /organizations/acme/settings/apps/new", formURL)
	}
	state := formURL.Query().Get("state")
	if len(state) < 32 {
		t.Errorf("state %q is too short to be unguessable", state)
	}
	manifestJSON := html.UnescapeString(string(value[1]))
	var sent webflow.Manifest
	if err := json.Unmarshal([]byte(manifestJSON), &sent); err != nil {
		t.Fatalf("manifest is not JSON: %v\n%s", err, manifestJSON)
	}
	var want webflow.Manifest
	var wantYAML map[string]any
	if err := yaml.Unmarshal(deploy.AppManifest, &wantYAML); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(wantYAML)
	json.Unmarshal(b, &want)
	if sent.HookAttributes.URL != "https://verdict.example.com/webhook" || sent.Name != "Verdict (acme)" ||
		sent.RedirectURL != s.page+"/callback" || sent.URL != want.URL {
		t.Errorf("manifest = %+v", sent)
	}
	if strings.Join(sent.DefaultEvents, ",") != strings.Join(want.DefaultEvents, ",") || len(sent.DefaultPermissions) != len(want.DefaultPermissions) {
		t.Errorf("events/permissions %v %v, want those of deploy/app-manifest.yml %v %v", sent.DefaultEvents, sent.DefaultPermissions, want.DefaultEvents, want.DefaultPermissions)
	}
	for k, v := range want.DefaultPermissions {
		if sent.DefaultPermissions[k] != v {
			t.Errorf("permission %s = %q, want %q", k, sent.DefaultPermissions[k], v)
		}
	}

	// A callback with another state is refused and exchanges nothing.
	resp, err = noRedirect.Get(s.page + "/callback?code=abc&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || gh.Calls("POST /app-manifests/{code}/conversions") != 0 {
		t.Fatalf("forged state: status %d, %d conversions", resp.StatusCode, gh.Calls("POST /app-manifests/{code}/conversions"))
	}

	// The browser posts the form; GitHub redirects back with code and state.
	resp, err = noRedirect.PostForm(formURL.String(), url.Values{"manifest": {manifestJSON}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("form post: %d %v", resp.StatusCode, err)
	}
	if loc.Query().Get("state") != state || !strings.HasPrefix(loc.String(), s.page+"/callback?") {
		t.Fatalf("redirect to %s", loc)
	}
	resp, err = noRedirect.Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "/installations/new") {
		t.Errorf("callback page %d:\n%s", resp.StatusCode, page)
	}
	if code := s.wait(t); code != 0 {
		t.Fatalf("setup exited %d: %s", code, s.stderr.String())
	}

	apps := gh.Manifests().Registered()
	if len(apps) != 1 || apps[0].Org != "acme" {
		t.Fatalf("registered apps: %+v", apps)
	}
	app := apps[0].Config
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", out, fi.Mode().Perm())
	}
	// The file loads in a shell as the README says and verdict serve accepts it.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to load the file with")
	}
	dump, err := exec.Command(sh, "-c", `set -a; . "$1"; set +a; for k in VERDICT_APP_ID VERDICT_APP_SLUG VERDICT_GITHUB_URL VERDICT_WEBHOOK_SECRET VERDICT_PRIVATE_KEY; do printf '%s\0' "$(printenv $k)"; done`, "sh", out).Output()
	if err != nil {
		t.Fatalf("loading %s in sh: %v", out, err)
	}
	vals := strings.Split(string(dump), "\x00")
	got := map[string]string{"VERDICT_APP_ID": vals[0], "VERDICT_APP_SLUG": vals[1], "VERDICT_GITHUB_URL": vals[2], "VERDICT_WEBHOOK_SECRET": vals[3], "VERDICT_PRIVATE_KEY": vals[4]}
	if got["VERDICT_APP_ID"] != jsonNumber(app.GetID()) || got["VERDICT_APP_SLUG"] != app.GetSlug() ||
		got["VERDICT_WEBHOOK_SECRET"] != app.GetWebhookSecret() || got["VERDICT_GITHUB_URL"] != gh.URL+"/api/v3/" ||
		strings.TrimSpace(got["VERDICT_PRIVATE_KEY"]) != strings.TrimSpace(app.GetPEM()) {
		t.Errorf("file holds %v; want the registered App's credentials", got)
	}
	cfg, err := config.LoadServer(nil, func(k string) string { return got[k] }, io.Discard)
	if err != nil {
		t.Fatalf("verdict serve would refuse the file: %v", err)
	}
	if cfg.AppID != app.GetID() || cfg.AppSlug != app.GetSlug() {
		t.Errorf("serve settings %+v", cfg)
	}
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestSetupRefusals(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "app.env")
	os.WriteFile(existing, []byte("VERDICT_APP_ID=1\n"), 0o600)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no webhook", nil, "-webhook-url: required"},
		{"relative webhook", []string{"-webhook-url", "verdict.example.com/webhook"}, "not an absolute http(s) URL"},
		{"bad org", []string{"-webhook-url", "https://v.example.com/webhook", "-org", "a/b"}, "not an organization login"},
		{"existing file", []string{"-webhook-url", "https://v.example.com/webhook", "-out", existing}, "exists; move it away"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(context.Background(), append([]string{"setup", "-listen", "127.0.0.1:0"}, tt.args...), Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: &stderr})
			if code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line containing %q", code, stderr.String(), tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "VERDICT_APP_ID=1\n" {
		t.Errorf("existing credentials were touched: %q", b)
	}
}

// TestSetupCodeUsedOnce: an exchange GitHub refuses (the code was already
// used) ends the flow with an error and writes nothing.
func TestSetupCodeUsedOnce(t *testing.T) {
	gh := githubtest.New(t, nil)
	out := filepath.Join(t.TempDir(), "verdict-app.env")
	s := startSetup(t, "-github-url", gh.BaseURL(), "-webhook-url", "https://verdict.example.com/webhook", "-out", out)
	body, _ := httpGet(t, s.page+"/?key="+s.key)
	state := regexp.MustCompile(`state=([0-9a-f]+)`).FindStringSubmatch(body)
	if state == nil {
		t.Fatalf("no state on the page:\n%s", body)
	}
	resp, err := noRedirect.Get(s.page + "/callback?code=0123abcd&state=" + state[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("callback with an unknown code: %d", resp.StatusCode)
	}
	if code := s.wait(t); code != 1 || !strings.Contains(s.stderr.String(), "exchanging the manifest code") {
		t.Errorf("exit %d, stderr %q", code, s.stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written after a failed exchange", out)
	}
}

func httpGet(t *testing.T, u string) (string, int) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode
}

func TestWebBase(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com/":          "https://github.com/",
		"https://ghe.example.com/api/v3/":  "https://ghe.example.com/",
		"https://api.acme.ghe.com/":        "https://acme.ghe.com/",
		"http://127.0.0.1:8080/":           "http://127.0.0.1:8080/",
		"http://127.0.0.1:8080/gh/api/v3/": "http://127.0.0.1:8080/gh/",
	} {
		u, _ := url.Parse(api)
		if got := webBase(u).String(); got != want {
			t.Errorf("webBase(%s) = %s, want %s", api, got, want)
		}
	}
}

// The set-up page carries a one-time state: it is served only on loopback,
// only under the names verdict setup printed (not to a DNS-rebinding page
// reaching the port under its own name), only with the printed key, and
// never framed.
func TestSetupPageGuardsItsState(t *testing.T) {
	gh := githubtest.New(t, nil)
	s := startSetup(t, "-github-url", gh.BaseURL(), "-webhook-url", "https://verdict.example.com/webhook", "-out", filepath.Join(t.TempDir(), "o.env"))
	get := func(path, host string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodGet, s.page+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, tc := range []struct {
		name, path, host string
		code             int
	}{
		{"the printed address", "/?key=" + s.key, "", http.StatusOK},
		{"no key", "/", "", http.StatusForbidden},
		{"another key", "/?key=0000", "", http.StatusForbidden},
		{"a rebinding name", "/?key=" + s.key, "evil.example:80", http.StatusMisdirectedRequest},
	} {
		resp, body := get(tc.path, tc.host)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.code)
		}
		if tc.code != http.StatusOK && strings.Contains(body, "state=") {
			t.Errorf("%s: the refusal shows the state", tc.name)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: headers %v", tc.name, resp.Header)
		}
	}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"setup", "-listen", "0.0.0.0:0", "-webhook-url", "https://v.example.com/webhook"},
		Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), "not a loopback address") {
		t.Errorf("a wildcard listen address: exit %d, %q", code, stderr.String())
	}
}
