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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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
	// The top card is the verdict that stands, the REJECTED one; the PASS
	// below it is marked superseded.
	if i := strings.Index(body, `data-now="REJECTED"`); i < 0 || i > strings.Index(body, `data-verdict=`) ||
		!strings.Contains(body, `superseded" data-verdict="PASS"`) {
		t.Error("the page does not lead with the standing REJECTED verdict over the superseded PASS")
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

// pageWidths are the viewports the details page must fit: a phone and a
// desktop.
var pageWidths = []int64{390, 1280}

// screenshot renders u in headless Chromium (driven over the DevTools
// protocol) at each of pageWidths and saves a full-page screenshot of each
// as file with the width in its name, after checking that the DOM holds
// want, that nothing is wider than the viewport (no horizontal scroll) and
// that both languages are on screen.
func screenshot(t *testing.T, browser, u, file, want string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-device-scale-factor", "1"), chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()
	for _, width := range pageWidths {
		type seen struct{ EN, ZH bool }
		err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(u), chromedp.WaitReady("body"))
		var dom string
		var overflow int
		var visible seen
		var shot []byte
		if err == nil {
			dom, err = chromedp.Run(ctx, chromedp.OuterHTML("html"))
		}
		if err == nil {
			overflow, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
		}
		if err == nil {
			visible, err = chromedp.Run(ctx, chromedp.Evaluate[seen](`(() => {
				const on = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.right <= window.innerWidth + 1; };
				return { EN: [...document.querySelectorAll('h1, h2')].some(on),
					ZH: [...document.querySelectorAll('[lang="zh"]')].some(el => el.textContent.trim() !== '' && on(el)) };
			})()`))
		}
		if err == nil {
			shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		}
		if err != nil {
			t.Fatalf("rendering %s at %d px: %v", u, width, err)
		}
		if !strings.Contains(dom, want) || !strings.Contains(dom, "验证记录与事件") {
			t.Fatalf("the browser's DOM at %d px lacks %s:\n%.2000s", width, want, dom)
		}
		if overflow > 0 {
			t.Errorf("at %d px the page is %d px wider than the screen (horizontal scroll)", width, overflow)
		}
		if !visible.EN || !visible.ZH {
			t.Errorf("at %d px: English visible %v, Chinese visible %v", width, visible.EN, visible.ZH)
		}
		out := strings.TrimSuffix(file, ".png") + "-" + strconv.FormatInt(width, 10) + ".png"
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("screenshot %s: %v", out, err)
		}
		if b := img.Bounds(); int64(b.Dx()) != width || colours(img) < 20 {
			t.Fatalf("screenshot %s is %v with %d colours: the page did not render", out, b.Size(), colours(img))
		}
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
