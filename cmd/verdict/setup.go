package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-github/v62/github"
	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/deploy"
)

// cmdSetup registers the GitHub App through GitHub's manifest flow: it
// serves a page whose form posts deploy/app-manifest.yml (with this
// deployment's webhook URL) to GitHub, waits for GitHub to redirect back
// with a one-time code, trades the code for the App's credentials and
// writes them where verdict serve reads them.
func cmdSetup(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	webhookURL := fs.String("webhook-url", "", "the App's webhook URL, https://<your host>/webhook (required)")
	githubURL := fs.String("github-url", envOrGet(env, "VERDICT_GITHUB_URL", ghclient.DefaultBaseURL), "GitHub REST API base; GitHub Enterprise Server: https://HOST/api/v3/")
	webURL := fs.String("web-url", "", "GitHub web base the form is posted to (default: derived from -github-url)")
	org := fs.String("org", "", "register the App for this organization instead of your user account")
	name := fs.String("name", "", "App name, unique on GitHub (default: the manifest's, Verdict)")
	listen := fs.String("listen", "127.0.0.1:3000", "address of the local set-up page")
	browserURL := fs.String("browser-url", "", "URL at which your browser reaches the set-up page (default http://<listen address>)")
	out := fs.String("out", "verdict-app.env", `file for the App ID, slug, webhook secret and private key (mode 0600); "-" prints them`)
	timeout := fs.Duration("timeout", 30*time.Minute, "give up waiting for the browser after this long")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: verdict setup -webhook-url https://<host>/webhook [flags]")
		fmt.Fprintln(env.Stderr, "\nRegisters the Verdict GitHub App from deploy/app-manifest.yml through GitHub's manifest flow.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "verdict setup: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if err := absoluteURL(*webhookURL); err != nil {
		return fail("-webhook-url: %v", err)
	}
	api, err := ghclient.ParseBaseURL(*githubURL)
	if err != nil {
		return fail("-github-url: %v", err)
	}
	web := webBase(api)
	if *webURL != "" {
		if web, err = ghclient.ParseBaseURL(*webURL); err != nil {
			return fail("-web-url: %v", err)
		}
	}
	if *org != "" && !orgRE.MatchString(*org) {
		return fail("-org %q is not an organization login", *org)
	}
	if *out != "-" {
		if _, err := os.Lstat(*out); err == nil {
			return fail("%s exists; move it away or choose another -out (it may hold another App's key)", *out)
		}
	}
	if !loopback(*listen) {
		return fail("-listen %s is not a loopback address: the page carries a one-time secret; reach it from elsewhere through an SSH tunnel", *listen)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail("listening on %s: %v", *listen, err)
	}
	page := *browserURL
	if page == "" {
		page = "http://" + browserHost(ln.Addr())
	}
	page = strings.TrimSuffix(page, "/")
	manifest, err := buildManifest(deploy.AppManifest, *webhookURL, page+"/callback", *name)
	if err != nil {
		ln.Close()
		return fail("%v", err)
	}
	gh, err := ghclient.NewToken(api.String(), "")
	if err != nil {
		ln.Close()
		return fail("%v", err)
	}
	action := web.JoinPath("settings", "apps", "new")
	if *org != "" {
		action = web.JoinPath("organizations", *org, "settings", "apps", "new")
	}
	f := &setupFlow{gh: gh, manifest: manifest, action: action.String(), state: randomState(), key: randomState(),
		hosts: pageHosts(page, ln.Addr()), done: make(chan setupResult, 1)}

	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Fprintf(env.Stderr, "verdict setup: open %s/?key=%s in your browser to register the App on %s (Ctrl-C cancels)\n", page, f.key, web)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	var res setupResult
	select {
	case res = <-f.done:
	case <-ctx.Done():
		fmt.Fprintf(env.Stderr, "verdict setup: no App registered: %v\n", context.Cause(ctx))
		return 1
	}
	if res.err != nil {
		fmt.Fprintf(env.Stderr, "verdict setup: %v\n", res.err)
		return 1
	}
	lines := envLines(res.app, api.String())
	if *out == "-" {
		io.WriteString(env.Stdout, lines)
	} else if err := writeSecretFile(*out, lines); err != nil {
		fmt.Fprintf(env.Stderr, "verdict setup: App %s (ID %d) was registered but its credentials could not be saved: %v\n"+
			"Generate a new private key on its settings page.\n", res.app.GetSlug(), res.app.GetID(), err)
		return 1
	}
	fmt.Fprintf(env.Stderr, "verdict setup: registered App %s (ID %d): %s\n", res.app.GetSlug(), res.app.GetID(), res.app.GetHTMLURL())
	if *out != "-" {
		fmt.Fprintf(env.Stderr, "verdict setup: wrote %s (mode 0600); load it with: set -a; . ./%s; set +a\n", *out, strings.TrimPrefix(*out, "./"))
	}
	fmt.Fprintf(env.Stderr, "verdict setup: now install the App on your repositories: %s/installations/new\n", res.app.GetHTMLURL())
	fmt.Fprintln(env.Stderr, "verdict setup: then require the check run \"Verdict / sign-off\" with this App as its source in branch protection or a ruleset (README, \"Making Verdict's check required\")")
	return 0
}

var orgRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}$`)

func envOrGet(env Env, k, def string) string {
	if env.Getenv != nil {
		if v := env.Getenv(k); v != "" {
			return v
		}
	}
	return def
}

func absoluteURL(s string) error {
	if s == "" {
		return errors.New("required")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", s)
	}
	return nil
}

// webBase is the web address of the GitHub an API base belongs to:
// api.github.com -> github.com, api.<tenant>.ghe.com -> <tenant>.ghe.com,
// https://HOST/api/v3/ (Enterprise Server) -> https://HOST/; any other base
// (a local GitHub-compatible server) serves both from one root.
func webBase(api *url.URL) *url.URL {
	w := *api
	switch {
	case w.Host == "api.github.com":
		w.Host = "github.com"
	case strings.HasPrefix(w.Host, "api.") && strings.HasSuffix(w.Host, ".ghe.com"):
		w.Host = strings.TrimPrefix(w.Host, "api.")
	}
	w.Path = strings.TrimSuffix(w.Path, "api/v3/")
	return &w
}

// loopback reports whether a listen address is on the loopback interface
// (localhost included).
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// pageHosts are the Host headers under which the page is served: the
// browser URL's and the listening address's, localhost included.
func pageHosts(page string, a net.Addr) map[string]bool {
	hosts := map[string]bool{}
	if u, err := url.Parse(page); err == nil && u.Host != "" {
		hosts[strings.ToLower(u.Host)] = true
	}
	if _, port, err := net.SplitHostPort(a.String()); err == nil {
		for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
			hosts[h+":"+port] = true
		}
	}
	return hosts
}

// browserHost is the listening address as a browser on this machine can
// reach it (a wildcard address becomes localhost).
func browserHost(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// buildManifest turns deploy/app-manifest.yml into the JSON GitHub expects,
// with this deployment's webhook URL and the set-up page's callback.
func buildManifest(src []byte, webhookURL, redirectURL, name string) (string, error) {
	var m map[string]any
	if err := yaml.Unmarshal(src, &m); err != nil {
		return "", fmt.Errorf("reading the embedded App manifest: %w", err)
	}
	hook, _ := m["hook_attributes"].(map[string]any)
	if hook == nil {
		hook = map[string]any{"active": true}
	}
	hook["url"] = webhookURL
	m["hook_attributes"] = hook
	m["redirect_url"] = redirectURL
	if name != "" {
		m["name"] = name
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encoding the App manifest: %w", err)
	}
	return string(b), nil
}

func randomState() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

type setupResult struct {
	app *github.AppConfig
	err error
}

// setupFlow serves the set-up page and GitHub's redirect back to it. The
// state is one-time: the first callback that carries it ends the flow,
// whatever the exchange's outcome, and any other callback is refused.
type setupFlow struct {
	gh       *github.Client
	manifest string
	action   string
	state    string
	// key is printed to the terminal only: the page, which carries the
	// state, is served to whoever holds it, so another local user or a
	// page in the browser cannot read the state off the port.
	key string
	// hosts are the Host headers the page answers: a DNS-rebinding page
	// reaches the port under its own name and is refused.
	hosts map[string]bool

	mu   sync.Mutex
	used bool
	done chan setupResult
}

var setupPage = template.Must(template.New("setup").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Register Verdict</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
{{if .Manifest}}<h1>Register the Verdict GitHub App</h1>
<p>The button sends Verdict's App manifest (permissions, events and webhook URL) to GitHub, where you confirm the
App's name. GitHub then sends you back here and Verdict saves the App's credentials.</p>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Create the App on GitHub</button>
</form>
{{else}}<h1>{{.Title}}</h1><p>{{.Text}}</p>{{if .Link}}<p><a href="{{.Link}}">{{.Link}}</a></p>{{end}}{{end}}
</body></html>
`))

type pageData struct {
	Action, Manifest  string
	Title, Text, Link string
}

func (f *setupFlow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// Not framed, not readable cross-origin, and no Referer to GitHub
	// carrying the key.
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Referrer-Policy", "no-referrer")
	if !f.hosts[strings.ToLower(r.Host)] {
		w.WriteHeader(http.StatusMisdirectedRequest)
		setupPage.Execute(w, pageData{Title: "Refused", Text: "This page answers only at the address verdict setup printed."})
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("key")), []byte(f.key)) != 1 {
			w.WriteHeader(http.StatusForbidden)
			setupPage.Execute(w, pageData{Title: "Refused", Text: "Open the whole address verdict setup printed, with its key."})
			return
		}
		setupPage.Execute(w, pageData{Action: f.action + "?state=" + url.QueryEscape(f.state), Manifest: f.manifest})
	case r.Method == http.MethodGet && r.URL.Path == "/callback":
		f.callback(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *setupFlow) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	ok := !f.used && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.state)) == 1
	if ok {
		f.used = true
	}
	f.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusForbidden)
		setupPage.Execute(w, pageData{Title: "Refused", Text: "This link does not belong to the running verdict setup, or was already used. Start again from its page."})
		return
	}
	code := q.Get("code")
	if code == "" || strings.ContainsAny(code, "/?#") {
		f.finish(w, nil, errors.New("GitHub's redirect carried no usable code"))
		return
	}
	// The code is single-use: a browser that goes away mid-exchange must not
	// cancel it.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Minute)
	defer cancel()
	app, _, err := f.gh.Apps.CompleteAppManifest(ctx, code)
	if err != nil {
		f.finish(w, nil, fmt.Errorf("exchanging the manifest code: %s", oneLine(err)))
		return
	}
	if app.GetID() == 0 || app.GetPEM() == "" || app.GetWebhookSecret() == "" {
		f.finish(w, nil, errors.New("GitHub's answer lacks the App ID, private key or webhook secret"))
		return
	}
	f.finish(w, app, nil)
}

func (f *setupFlow) finish(w http.ResponseWriter, app *github.AppConfig, err error) {
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		setupPage.Execute(w, pageData{Title: "The App was not set up", Text: err.Error()})
	} else {
		setupPage.Execute(w, pageData{Title: "Verdict is registered",
			Text: "App " + app.GetSlug() + " exists; verdict setup saves its credentials and says where in the terminal. Install it on your repositories:",
			Link: app.GetHTMLURL() + "/installations/new"})
	}
	f.done <- setupResult{app: app, err: err}
}

// envLines are the settings verdict serve reads, as a file a POSIX shell
// (set -a; . FILE) and systemd's EnvironmentFile both load.
func envLines(app *github.AppConfig, apiBase string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# GitHub App %s (ID %d), registered by verdict setup on %s.\n", app.GetSlug(), app.GetID(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "# Keep this file secret: it holds the App's private key and webhook secret.\n")
	for _, kv := range [][2]string{
		{"VERDICT_APP_ID", fmt.Sprint(app.GetID())},
		{"VERDICT_APP_SLUG", app.GetSlug()},
		{"VERDICT_GITHUB_URL", apiBase},
		{"VERDICT_WEBHOOK_SECRET", app.GetWebhookSecret()},
		{"VERDICT_PRIVATE_KEY", strings.TrimRight(app.GetPEM(), "\n") + "\n"},
		{"VERDICT_OAUTH_CLIENT_ID", app.GetClientID()},
		{"VERDICT_OAUTH_CLIENT_SECRET", app.GetClientSecret()},
	} {
		fmt.Fprintf(&b, "%s=%s\n", kv[0], shellQuote(kv[1]))
	}
	return b.String()
}

var plainValueRE = regexp.MustCompile(`^[A-Za-z0-9_./:@+-]*$`)

// shellQuote single-quotes a value unless it is plain.
func shellQuote(s string) string {
	if plainValueRE.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeSecretFile creates path with mode 0600; it never replaces a file.
func writeSecretFile(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
