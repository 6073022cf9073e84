package details

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/webflow"
	"github.com/verdict-bot/verdict/app/store"
)

// memHistory is a History in memory, keyed by owner/name#number.
type memHistory struct {
	events   map[string][]store.Event
	signoffs map[string][]store.SignOff
}

func (m memHistory) History(_ context.Context, repo string, pr, limit int) ([]store.Event, error) {
	return m.events[strings.ToLower(repo)+"#"+strconv.Itoa(pr)], nil
}

func (m memHistory) SignOffs(_ context.Context, repo string, pr int) ([]store.SignOff, error) {
	return m.signoffs[strings.ToLower(repo)+"#"+strconv.Itoa(pr)], nil
}

// fakeVisibility asks the fake GitHub as the installation, as serve does.
type fakeVisibility struct{ gh *github.Client }

func (v fakeVisibility) Private(ctx context.Context, owner, repo string) (bool, error) {
	r, resp, err := v.gh.Repositories.Get(ctx, owner, repo)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return false, ErrNotInstalled
	}
	if err != nil {
		return false, err
	}
	return r.GetPrivate(), nil
}

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func sampleHistory() []store.Event {
	rows := func(status0 string) []store.CheckRow {
		return []store.CheckRow{
			{Check: 0, NameEN: "CODEOWNER", NameZH: "代码所有者", Status: status0,
				ReasonEN: "@amd-owner-a owns every changed path", ReasonZH: "@amd-owner-a 拥有所有变更路径",
				Evidence: []store.Evidence{{Label: "CODEOWNERS", URL: "https://github.com/acme/bench/blob/abc/CODEOWNERS"},
					{Label: "bad link", URL: "javascript:alert(1)"}, {Label: "owner", Value: "@amd-owner-a"}}},
			{Check: 14, NameEN: "Pareto coverage", NameZH: "帕累托覆盖", Advisory: true, Status: "WARN",
				ReasonEN: "3 frontier points <script>", ReasonZH: "3 个前沿点"},
		}
	}
	head := strings.Repeat("a", 40)
	return []store.Event{
		{Kind: store.KindWithdrawal, Repo: "acme/bench", PR: 7, SignOffKey: "issuecomment-1", Actor: "amd-owner-a", At: t0.Add(3 * time.Minute), Detail: "sign-off deleted"},
		{Kind: store.KindCommand, Repo: "acme/bench", PR: 7, Actor: "boss", Detail: "/verdict recheck — verified issuecomment-1: REJECTED", DeliveryID: "d3", At: t0.Add(2 * time.Minute)},
		{Kind: store.KindVerification, Repo: "acme/bench", PR: 7, SHA: head, SignOffKey: "issuecomment-1", Actor: "boss", DeliveryID: "d3", At: t0.Add(2 * time.Minute),
			Verification: &store.Verification{Verdict: "REJECTED", BodySHA256: strings.Repeat("c", 64), CommentURL: "https://github.com/acme/bench/pull/7#issuecomment-9",
				Rows: rows("FAIL"), Duration: 2 * time.Second, APICalls: 41}},
		{Kind: store.KindBypass, Repo: "acme/bench", PR: 7, SHA: head, SignOffKey: "issuecomment-1", Actor: "boss", At: t0, Detail: "Check 14: tight GPU budget"},
		{Kind: store.KindVerification, Repo: "acme/bench", PR: 7, SHA: head, SignOffKey: "issuecomment-1", Actor: "amd-owner-a", DeliveryID: "d1", At: t0,
			Verification: &store.Verification{Verdict: "PASS", BodySHA256: strings.Repeat("b", 64), CommentURL: "https://github.com/acme/bench/pull/7#issuecomment-9",
				Rows: rows("PASS"), Duration: 1500 * time.Millisecond, APICalls: 40}},
	}
}

type site struct {
	gh  *githubtest.Server
	srv *httptest.Server
	c   *http.Client // a browser: cookies, redirects followed
}

func newSite(t *testing.T, withOAuth bool, opts ...func(*Options)) *site {
	t.Helper()
	fx := fixture.New("verdict")
	fx.Tree("t").Put("a.txt", "a\n")
	for _, name := range []string{"acme/bench", "acme/secret"} {
		r := fx.Repo(name)
		r.Private = name == "acme/secret"
		r.Commit("c", "t")
		r.Branch("main", "c")
		r.Collaborators = map[string]fixture.Permission{"reader": {Permission: "read", RoleName: "read"}}
	}
	gh := githubtest.New(t, fx)
	inst, err := ghclient.NewToken(gh.BaseURL(), gh.InstallationToken())
	if err != nil {
		t.Fatal(err)
	}
	hist := memHistory{events: map[string][]store.Event{"acme/bench#7": sampleHistory(), "acme/secret#7": sampleHistory()},
		signoffs: map[string][]store.SignOff{"acme/bench#7": {{Repo: "acme/bench", Key: "issuecomment-1", PR: 7,
			State: store.SignOffWithdrawn, Verdict: "REJECTED", AssessedSHA: strings.Repeat("a", 40)}}}}
	r := chi.NewRouter()
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	o := Options{History: hist, Visibility: fakeVisibility{inst}, PublicURL: srv.URL, WebURL: gh.URL,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if withOAuth {
		gh.OAuth().SetApp(webflow.OAuthApp{ClientID: "Iv1.verdict", ClientSecret: "oauth-secret", CallbackURL: srv.URL + "/auth/callback"})
		o.OAuth = &OAuth{ClientID: "Iv1.verdict", ClientSecret: "oauth-secret", WebURL: gh.URL, APIURL: gh.BaseURL()}
	}
	for _, f := range opts {
		f(&o)
	}
	New(o).Routes(r)
	jar, _ := cookiejar.New(nil)
	return &site{gh: gh, srv: srv, c: &http.Client{Jar: jar}}
}

func (s *site) get(t *testing.T, path string) (int, string, *url.URL) {
	t.Helper()
	resp, err := s.c.Get(s.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Request.URL
}

func TestPublicPage(t *testing.T) {
	s := newSite(t, false)
	code, body, _ := s.get(t, "/pr/acme/bench/7")
	if code != 200 {
		t.Fatalf("public page: %d\n%s", code, body)
	}
	// Newest first: the withdrawal belongs to the REJECTED verdict, the
	// bypass to both verifications of its commit; the command stands alone.
	order := []string{`data-kind="command"`, `data-verdict="REJECTED"`, `Withdrawal <span lang="zh">撤回</span></span> 2026-11-20 12:03:00 UTC @amd-owner-a: sign-off deleted`,
		`data-verdict="PASS"`}
	at := 0
	for _, w := range order {
		i := strings.Index(body[at:], w)
		if i < 0 {
			t.Fatalf("page lacks %q after byte %d:\n%s", w, at, body)
		}
		at += i
	}
	for _, w := range []string{
		"@amd-owner-a owns every changed path", "@amd-owner-a 拥有所有变更路径", "代码所有者",
		`<a href="https://github.com/acme/bench/blob/abc/CODEOWNERS">CODEOWNERS</a>`, "owner: @amd-owner-a",
		"3 frontier points &lt;script&gt;", "41 GitHub API calls", "every sign-off on this pull request was withdrawn", "delivery <span lang=\"zh\">投递</span> <code>d3</code>",
		strings.Repeat("c", 64), `href="` + s.gh.URL + `/acme/bench/pull/7"`, "验证记录与事件",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if n := strings.Count(body, "tight GPU budget"); n != 2 {
		t.Errorf("the bypass is shown %d times, want under both verifications of its commit", n)
	}
	if strings.Contains(body, "javascript:") || strings.Contains(body, "<script>") {
		t.Error("an unsafe link or markup reached the page")
	}
	if code, body, _ := s.get(t, "/pr/acme/none/7"); code != 404 || !strings.Contains(body, "没有这个页面") {
		t.Errorf("unknown repository: %d", code)
	}
	if code, _, _ := s.get(t, "/pr/acme/bench/x"); code != 404 {
		t.Errorf("bad number: %d", code)
	}
	if code, body, _ := s.get(t, "/pr/acme/bench/8"); code != 200 || !strings.Contains(body, "此拉取请求尚无验证记录") {
		t.Errorf("empty history: %d", code)
	}
}

func TestPrivatePageNeedsReadAccess(t *testing.T) {
	s := newSite(t, true)
	// Signed out on GitHub: the browser ends on GitHub's sign-in page.
	code, body, at := s.get(t, "/pr/acme/secret/7")
	if code != 200 || !strings.HasPrefix(at.String(), s.gh.URL+"/login/oauth/authorize?") || strings.Contains(body, "CODEOWNER") {
		t.Fatalf("signed-out reader ended on %s (%d)", at, code)
	}
	if q := at.Query(); q.Get("client_id") != "Iv1.verdict" || q.Get("redirect_uri") != s.srv.URL+"/auth/callback" || len(q.Get("state")) != 32 {
		t.Errorf("authorize URL %s", at)
	}

	// Someone without access signs in: refused, and still refused after.
	s.gh.OAuth().SetBrowserUser("stranger")
	if code, body, _ := s.get(t, "/pr/acme/secret/7"); code != 403 || !strings.Contains(body, "@stranger cannot read acme/secret") || strings.Contains(body, "CODEOWNER") {
		t.Fatalf("stranger: %d\n%s", code, body)
	}

	// A collaborator signs in and reads it; the public page needs nothing.
	s.gh.OAuth().SetBrowserUser("reader")
	code, body, at = s.get(t, "/pr/acme/secret/7")
	if code != 200 || at.Path != "/pr/acme/secret/7" || !strings.Contains(body, "signed in as @reader") || !strings.Contains(body, `data-verdict="PASS"`) {
		t.Fatalf("reader: %d at %s\n%s", code, at, body)
	}
	calls := s.gh.Calls("GET /login/oauth/authorize")
	if code, _, _ := s.get(t, "/pr/acme/secret/7"); code != 200 || s.gh.Calls("GET /login/oauth/authorize") != calls {
		t.Errorf("the session did not hold: %d, %d more sign-ins", code, s.gh.Calls("GET /login/oauth/authorize")-calls)
	}

	// A forged or altered session is no session.
	u, _ := url.Parse(s.srv.URL)
	for _, c := range s.c.Jar.Cookies(u) {
		if c.Name == sessionCookie {
			c.Value = strings.Replace(c.Value, ".", "x.", 1)
			s.c.Jar.SetCookies(u, []*http.Cookie{c})
		}
	}
	s.gh.OAuth().SetBrowserUser("")
	if code, _, at := s.get(t, "/pr/acme/secret/7"); code != 200 || !strings.Contains(at.Path, "/login/oauth/authorize") {
		t.Errorf("altered session cookie: %d at %s", code, at)
	}

	// A callback this browser did not start is refused.
	if code, body, _ := s.get(t, "/auth/callback?code=abc&state=0123"); code != 400 || !strings.Contains(body, "此次登录") {
		t.Errorf("foreign callback: %d", code)
	}
}

func TestPrivatePageWithoutSignIn(t *testing.T) {
	s := newSite(t, false)
	if code, body, _ := s.get(t, "/pr/acme/secret/7"); code != 403 || !strings.Contains(body, "VERDICT_OAUTH_CLIENT_ID") || strings.Contains(body, "CODEOWNER") {
		t.Errorf("private page without OAuth: %d\n%s", code, body)
	}
	if code, _, _ := s.get(t, "/auth/callback?code=x&state=y"); code != 404 {
		t.Errorf("callback without OAuth: %d", code)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"InferenceX": true, "a.b": true, "..x": true, "x_y-z": true,
		".": false, "..": false, "": false, "a/b": false, "a b": false,
	} {
		if got := validName(name); got != want {
			t.Errorf("validName(%q) = %v, want %v", name, got, want)
		}
	}
}

// grants is an Access whose answers the test sets.
type grants struct {
	mu    sync.Mutex
	can   map[string]bool
	asked int
}

func (g *grants) CanRead(_ context.Context, owner, repo, login string) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked++
	return g.can[login+"@"+owner+"/"+repo], nil
}

func (g *grants) set(key string, v bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.can[key] = v
}

// A reader whose access is revoked loses the page within accessTTL, not at
// the end of the session; signing out ends the session at once.
func TestPrivatePageReChecksAccessAndSignsOut(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	g := &grants{can: map[string]bool{"reader@acme/secret": true}}
	s := newSite(t, true, func(o *Options) { o.Access, o.Now = g, clock })
	s.gh.OAuth().SetBrowserUser("reader")
	code, body, _ := s.get(t, "/pr/acme/secret/7")
	if code != 200 || !strings.Contains(body, `action="/auth/signout"`) {
		t.Fatalf("reader: %d\n%s", code, body)
	}
	asked := g.asked
	if code, _, _ := s.get(t, "/pr/acme/secret/7"); code != 200 || g.asked != asked {
		t.Fatalf("a second view within the TTL asked GitHub again (%d) or failed (%d)", g.asked-asked, code)
	}
	g.set("reader@acme/secret", false)
	advance(accessTTL + time.Second)
	if code, body, _ := s.get(t, "/pr/acme/secret/7"); code != 403 || strings.Contains(body, "CODEOWNER") {
		t.Fatalf("revoked reader after the TTL: %d", code)
	}

	g.set("reader@acme/secret", true)
	noFollow := &http.Client{Jar: s.c.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.PostForm(s.srv.URL+"/auth/signout", url.Values{"next": {"/pr/acme/secret/7"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/pr/acme/secret/7" {
		t.Errorf("sign-out answered %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	u, _ := url.Parse(s.srv.URL)
	for _, c := range s.c.Jar.Cookies(u) {
		if c.Name == sessionCookie {
			t.Fatalf("the session cookie survived sign-out")
		}
	}
	s.gh.OAuth().SetBrowserUser("")
	if code, _, at := s.get(t, "/pr/acme/secret/7"); code != 200 || !strings.Contains(at.Path, "/login/oauth/authorize") {
		t.Errorf("after sign-out: %d at %s, want GitHub's sign-in", code, at)
	}
}

// Views of repositories the App is not installed on are cached too, and a
// client that keeps asking for uncached ones is slowed down.
func TestUnknownRepositoriesCostGitHubOnce(t *testing.T) {
	s := newSite(t, false)
	if code, _, _ := s.get(t, "/pr/acme/bench/7"); code != 200 {
		t.Fatalf("public page: %d", code)
	}
	before := s.gh.Calls("GET /repos/{owner}/{repo}")
	for range 5 {
		if code, _, _ := s.get(t, "/pr/acme/none/7"); code != 404 {
			t.Fatalf("unknown repository: %d", code)
		}
	}
	if n := s.gh.Calls("GET /repos/{owner}/{repo}") - before; n != 1 {
		t.Errorf("5 views of one unknown repository asked GitHub %d times", n)
	}
	limited := false
	for i := range lookupBurst + 5 {
		code, _, _ := s.get(t, "/pr/acme/made-up-"+strconv.Itoa(i)+"/7")
		if code == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d uncached lookups from one client were all answered", lookupBurst+5)
	}
	if code, _, _ := s.get(t, "/pr/acme/bench/7"); code != 200 {
		t.Errorf("a cached page while rate limited: %d", code)
	}
}
