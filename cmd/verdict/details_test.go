package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/webflow"
)

// publicApp starts the App with a public URL: its own address, chosen
// before it listens so that check runs can link to it.
func publicApp(t *testing.T, mutate func(*fixture.Fixture), settings map[string]string) (*app, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	all := map[string]string{"VERDICT_LISTEN": addr, "VERDICT_PUBLIC_URL": base}
	for k, v := range settings {
		all[k] = v
	}
	return startAppSettings(t, mutate, all), base
}

func getPage(t *testing.T, c *http.Client, u string) (int, string, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Request.URL.String()
}

// The check run links to the PR's details page, which shows each
// verification newest first; headless Chromium renders a PASS and then a
// REJECTED one, and the screenshots go to the test's temporary directory.
func TestDetailsPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	a, base := publicApp(t, nil, nil)
	page := base + "/pr/SemiAnalysisAI/InferenceX/3412"
	review := a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a")
	if code := a.deliver("pull_request_review", "d-page-1", review, e2eSecret); code != 202 {
		t.Fatalf("delivery: %d", code)
	}
	a.waitFor("the verdict", a.completedCheckRun)
	for _, r := range a.gh.CheckRuns(e2eRepo, a.head) {
		if r.GetName() == "Verdict / sign-off" && r.GetDetailsURL() != page {
			t.Errorf("check run links to %q, want the details page %s", r.GetDetailsURL(), page)
		}
	}
	var body string
	a.waitFor("the recorded verification", func() bool {
		_, body, _ = getPage(t, http.DefaultClient, page)
		return strings.Contains(body, `data-verdict="PASS"`)
	})
	for _, w := range []string{"CODEOWNER", "代码所有者", "delivery <span lang=\"zh\">投递</span> <code>d-page-1</code>", "pullrequestreview-3900000001"} {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}

	browser := findBrowser()
	if browser == "" {
		t.Skip("chromium not installed (apt-get install chromium); details page not rendered in a browser")
	}
	dir := t.TempDir()
	if d := os.Getenv("VERDICT_SCREENSHOT_DIR"); d != "" {
		dir = d // to look at them
	}
	screenshot(t, browser, page, filepath.Join(dir, "details-pass.png"), `data-verdict="PASS"`)

	// A sign-off by someone who owns none of the changed paths: REJECTED,
	// and on top of the page.
	const bad = "As a PR reviewer and CODEOWNER, I have reviewed this and have:\n- [x] Looked\nSigned: `maintainer-a`\n"
	id := a.gh.AddComment(e2eRepo, e2ePR, fixture.Comment{User: "maintainer-a", Association: "OWNER", Body: bad})
	if code := a.deliver("issue_comment", "d-page-2", a.flowCommentEvent("created", id, bad, "maintainer-a", "OWNER"), e2eSecret); code != 202 {
		t.Fatalf("delivery: %d", code)
	}
	a.waitFor("the REJECTED verification", func() bool {
		_, body, _ = getPage(t, http.DefaultClient, page)
		return strings.Contains(body, `data-verdict="REJECTED"`)
	})
	if strings.Index(body, `data-verdict="REJECTED"`) > strings.Index(body, `data-verdict="PASS"`) {
		t.Error("the newer REJECTED verification is not first")
	}
	screenshot(t, browser, page, filepath.Join(dir, "details-rejected.png"), `data-verdict="REJECTED"`)
	t.Logf("screenshots: %s", dir)
}

func findBrowser() string {
	if p := os.Getenv("VERDICT_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// screenshot renders u in headless Chromium into file, after checking
// that the DOM the browser built holds want.
func screenshot(t *testing.T, browser, u, file, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := func(extra ...string) []string {
		return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
			"--user-data-dir=" + filepath.Join(filepath.Dir(file), "profile"), "--hide-scrollbars", "--force-device-scale-factor=1"}, extra...)
	}
	dom, err := exec.CommandContext(ctx, browser, args("--dump-dom", u)...).Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v", browser, err)
	}
	if !bytes.Contains(dom, []byte(want)) || !bytes.Contains(dom, []byte("验证记录与事件")) {
		t.Fatalf("the browser's DOM lacks %s:\n%.2000s", want, dom)
	}
	if out, err := exec.CommandContext(ctx, browser, args("--window-size=1200,2000", "--screenshot="+file, u)...).CombinedOutput(); err != nil {
		t.Fatalf("%s --screenshot: %v\n%s", browser, err, out)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || colours(img) < 20 {
		t.Fatalf("screenshot %s is %v with %d colours: the page did not render", file, b.Size(), colours(img))
	}
}

func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	return len(seen)
}

// A private repository's page, through the App's own wiring: the App asks
// GitHub whether the repository is private, the reader signs in with
// GitHub and must read the repository as themselves.
func TestDetailsPagePrivate(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end App test")
	}
	private := func(fx *fixture.Fixture) { fx.Repo(e2eRepo).Private = true }
	a, base := publicApp(t, private, map[string]string{"VERDICT_OAUTH_CLIENT_ID": "Iv1.e2e", "VERDICT_OAUTH_CLIENT_SECRET": "e2e-oauth"})
	a.gh.OAuth().SetApp(webflow.OAuthApp{ClientID: "Iv1.e2e", ClientSecret: "e2e-oauth", CallbackURL: base + "/auth/callback"})
	review := a.reviewEvent("submitted", 3900000001, "As a PR reviewer and CODEOWNER, I have reviewed this and have:", "amd-owner-a")
	if code := a.deliver("pull_request_review", "d-private", review, e2eSecret); code != 202 {
		t.Fatalf("delivery: %d", code)
	}
	a.waitFor("the verdict", a.completedCheckRun)
	page := base + "/pr/SemiAnalysisAI/InferenceX/3412"
	if code, body, _ := getPage(t, http.DefaultClient, page); code != 200 || strings.Contains(body, "CODEOWNER") {
		t.Fatalf("anonymous reader of a private page: %d", code)
	}
	for _, c := range []struct {
		login string
		code  int
		want  string
	}{{"someone-else", 403, "@someone-else cannot read " + e2eRepo}, {"amd-owner-a", 200, `data-verdict="PASS"`}} {
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar}
		a.gh.OAuth().SetBrowserUser(c.login)
		var code int
		var body, at string
		a.waitFor("the page as "+c.login, func() bool {
			code, body, at = getPage(t, browser, page)
			return code != 200 || strings.Contains(body, "data-verdict")
		})
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d at %s, want %d with %q", c.login, code, at, c.code, c.want)
		}
	}
	if n := a.gh.Calls("POST /login/oauth/access_token"); n != 2 {
		t.Errorf("%d code exchanges, want one per sign-in", n)
	}
}
