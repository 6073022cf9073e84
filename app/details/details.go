// Package details serves a pull request's details page: every verification
// Verdict recorded for it, newest first, with its rows, reasons and
// evidence, and the commands, bypasses, tamper marks and withdrawals
// around them, in English and Chinese. Pages of public repositories are
// open to anyone; a private repository's page needs a GitHub sign-in
// (OAuth web flow) by someone who can read the repository.
package details

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-bot/verdict/app/store"
)

// History reads a PR's recorded events, newest first, and what is kept of
// its sign-offs (whose verdict stands now).
type History interface {
	History(ctx context.Context, repo string, pr, limit int) ([]store.Event, error)
	SignOffs(ctx context.Context, repo string, pr int) ([]store.SignOff, error)
}

// Visibility tells whether a repository is private, asking GitHub as the
// App's installation on it.
type Visibility interface {
	// Private returns ErrNotInstalled when the App cannot see the
	// repository.
	Private(ctx context.Context, owner, repo string) (bool, error)
}

// Access tells whether a GitHub user can still read a repository, asking
// as the App (the session holds no token of theirs).
type Access interface {
	CanRead(ctx context.Context, owner, repo, login string) (bool, error)
}

// ErrNotInstalled: the App is not installed on the repository (or it does
// not exist); its page does not exist either.
var ErrNotInstalled = errors.New("the App is not installed on this repository")

// maxEvents bounds one page; the CLI reads the whole history.
const maxEvents = 500

// visibilityTTL is how long a repository's visibility is trusted, and
// that the App is not installed on one; accessTTL how long a signed-in
// reader's access to a private repository is trusted before GitHub is
// asked again: a reader whose access was revoked loses the page within it,
// not at the end of an 8-hour session.
const (
	visibilityTTL = time.Minute
	accessTTL     = 5 * time.Minute
)

// Asking GitHub is paid for by whoever views a page the caches do not
// answer; one client may make at most lookupBurst such views, then one
// every lookupEvery.
const (
	lookupBurst = 20
	lookupEvery = 3 * time.Second
)

// Options configure a Handler.
type Options struct {
	History    History
	Visibility Visibility
	// Access re-checks a signed-in reader's access every accessTTL; nil
	// trusts the session's grant until it expires.
	Access Access
	// OAuth signs readers of private repositories in; nil refuses their
	// pages.
	OAuth *OAuth
	// PublicURL is where browsers reach Verdict (no trailing slash): the
	// OAuth redirect comes back to PublicURL/auth/callback.
	PublicURL string
	// WebURL is GitHub's web base, for links to the PR.
	WebURL string
	Logger *slog.Logger
	Now    func() time.Time
}

// Handler serves the details pages and the sign-in callback.
type Handler struct {
	opt    Options
	signer signer
	secure bool

	mu     sync.Mutex
	vis    map[string]visibility
	access map[string]time.Time // login and repository → trusted until
	lookup map[string]*bucket   // client address → GitHub lookups left
}

type visibility struct {
	private bool
	missing bool // the App is not installed there
	until   time.Time
}

// bucket is a token bucket of GitHub lookups for one client.
type bucket struct {
	tokens float64
	at     time.Time
}

// New returns the handler; Routes mounts it.
func New(o Options) *Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &Handler{opt: o, secure: strings.HasPrefix(o.PublicURL, "https://"), vis: map[string]visibility{},
		access: map[string]time.Time{}, lookup: map[string]*bucket{}}
	if o.OAuth != nil {
		h.signer = newSigner(o.OAuth.ClientSecret)
	}
	return h
}

// Routes mounts GET /pr/{owner}/{repo}/{number} and GET /auth/callback.
func (h *Handler) Routes(r chi.Router) {
	r.Get("/pr/{owner}/{repo}/{number}", h.page)
	r.Get("/auth/callback", h.callback)
	r.Post("/auth/signout", h.signOut)
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// validName is an owner or repository name GitHub could have: its
// characters, and not "." or "..", which a path would resolve away.
func validName(s string) bool { return nameRE.MatchString(s) && s != "." && s != ".." }

// PagePath is the path of a PR's details page.
func PagePath(owner, repo string, number int) string {
	return fmt.Sprintf("/pr/%s/%s/%d", url.PathEscape(owner), url.PathEscape(repo), number)
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	owner, repo := chi.URLParam(r, "owner"), chi.URLParam(r, "repo")
	n, err := strconv.Atoi(chi.URLParam(r, "number"))
	if err != nil || n <= 0 || !validName(owner) || !validName(repo) {
		h.fail(w, http.StatusNotFound, msgNotFound)
		return
	}
	full := owner + "/" + repo
	log := h.opt.Logger.With("repo", full, "pr", n)
	private, err := h.private(r.Context(), client(r), owner, repo)
	switch {
	case errors.Is(err, ErrNotInstalled):
		h.fail(w, http.StatusNotFound, msgNotFound)
		return
	case errors.Is(err, errTooMany):
		w.Header().Set("Retry-After", strconv.Itoa(int(lookupEvery.Seconds())))
		h.fail(w, http.StatusTooManyRequests, msgTooMany)
		return
	case err != nil:
		log.Warn("details page: repository visibility unknown", "err", err)
		h.fail(w, http.StatusServiceUnavailable, msgUnavailable)
		return
	}
	var viewer string
	if private {
		s, ok := h.readSession(r, h.opt.Now())
		if !ok || !s.canRead(full) {
			h.signIn(w, r, full)
			return
		}
		still, err := h.stillReads(r.Context(), owner, repo, s.Login)
		switch {
		case err != nil:
			log.Warn("details page: re-checking the reader's access", "actor", s.Login, "err", err)
			h.fail(w, http.StatusServiceUnavailable, msgUnavailable)
			return
		case !still:
			log.Info("details page: the reader's access is gone", "actor", s.Login)
			h.fail(w, http.StatusForbidden, msgNoAccess(s.Login, full))
			return
		}
		viewer = s.Login
	}
	events, err := h.opt.History.History(r.Context(), full, n, maxEvents)
	if err != nil {
		log.Error("details page: reading the history", "err", err)
		h.fail(w, http.StatusInternalServerError, msgUnavailable)
		return
	}
	signoffs, err := h.opt.History.SignOffs(r.Context(), full, n)
	if err != nil {
		log.Error("details page: reading the sign-offs", "err", err)
		h.fail(w, http.StatusInternalServerError, msgUnavailable)
		return
	}
	v := buildPage(full, n, events, signoffs)
	v.Viewer, v.Private, v.Path = viewer, private, PagePath(owner, repo, n)
	if h.opt.WebURL != "" {
		v.PRURL = strings.TrimSuffix(h.opt.WebURL, "/") + "/" + full + "/pull/" + strconv.Itoa(n)
	}
	h.render(w, http.StatusOK, v)
}

// errTooMany is a client over its share of GitHub lookups.
var errTooMany = errors.New("too many pages asked of GitHub")

// private asks Visibility, remembering the answer for a minute, "not
// installed" included: every view of a page would otherwise cost two
// GitHub requests, and views of made-up repositories as many. A lookup
// the cache does not answer is charged to the client that asked.
func (h *Handler) private(ctx context.Context, from, owner, repo string) (bool, error) {
	key := strings.ToLower(owner + "/" + repo)
	now := h.opt.Now()
	h.mu.Lock()
	v, ok := h.vis[key]
	allowed := ok && now.Before(v.until) || h.take(from, now)
	h.mu.Unlock()
	switch {
	case ok && now.Before(v.until) && v.missing:
		return false, ErrNotInstalled
	case ok && now.Before(v.until):
		return v.private, nil
	case !allowed:
		return false, errTooMany
	}
	p, err := h.opt.Visibility.Private(ctx, owner, repo)
	if err != nil && !errors.Is(err, ErrNotInstalled) {
		return false, err
	}
	h.mu.Lock()
	if len(h.vis) > 10000 {
		h.vis = map[string]visibility{}
	}
	h.vis[key] = visibility{private: p, missing: err != nil, until: now.Add(visibilityTTL)}
	h.mu.Unlock()
	return p, err
}

// take spends one of client's lookups, reporting false when none is left.
// h.mu is held.
func (h *Handler) take(client string, now time.Time) bool {
	b, ok := h.lookup[client]
	if !ok {
		if len(h.lookup) > 10000 {
			h.lookup = map[string]*bucket{}
		}
		b = &bucket{tokens: lookupBurst, at: now}
		h.lookup[client] = b
	}
	b.tokens = min(lookupBurst, b.tokens+now.Sub(b.at).Seconds()/lookupEvery.Seconds())
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// client is the address a request came from, without its port.
func client(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// stillReads asks Access, at most every accessTTL per reader and
// repository, whether a signed-in reader can still read it.
func (h *Handler) stillReads(ctx context.Context, owner, repo, login string) (bool, error) {
	if h.opt.Access == nil {
		return true, nil
	}
	key := strings.ToLower(login + "\x00" + owner + "/" + repo)
	now := h.opt.Now()
	h.mu.Lock()
	until, ok := h.access[key]
	h.mu.Unlock()
	if ok && now.Before(until) {
		return true, nil
	}
	can, err := h.opt.Access.CanRead(ctx, owner, repo, login)
	if err != nil || !can {
		h.mu.Lock()
		delete(h.access, key)
		h.mu.Unlock()
		return false, err
	}
	h.mu.Lock()
	if len(h.access) > 10000 {
		h.access = map[string]time.Time{}
	}
	h.access[key] = now.Add(accessTTL)
	h.mu.Unlock()
	return true, nil
}

// signOut ends the session. It is a POST from the page's own form: the
// session cookie is SameSite=Lax, so another site cannot sign a reader
// out.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	h.clearCookie(w, sessionCookie)
	next := r.FormValue("next")
	if !strings.HasPrefix(next, "/pr/") || strings.Contains(next, "//") {
		h.fail(w, http.StatusOK, msgSignedOut)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signIn sends the browser to GitHub to sign in, with a fresh state that
// only this browser holds in a cookie.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request, repo string) {
	if h.opt.OAuth == nil {
		h.fail(w, http.StatusForbidden, msgNoLogin)
		return
	}
	var b [16]byte
	rand.Read(b[:])
	p := pendingLogin{State: hex.EncodeToString(b[:]), Repo: repo, Next: r.URL.Path, Expires: h.opt.Now().Add(loginTTL).Unix()}
	v, err := h.signer.seal(loginCookie, p)
	if err != nil {
		h.fail(w, http.StatusInternalServerError, msgUnavailable)
		return
	}
	h.setCookie(w, loginCookie, v, loginTTL)
	http.Redirect(w, r, h.opt.OAuth.AuthorizeURL(h.redirectURI(), p.State), http.StatusFound)
}

func (h *Handler) redirectURI() string { return h.opt.PublicURL + "/auth/callback" }

// callback finishes the sign-in: the state must be the one this browser
// was given, the code is traded for the user's token, and the user must
// read the repository through GitHub before the session says they can.
func (h *Handler) callback(w http.ResponseWriter, r *http.Request) {
	if h.opt.OAuth == nil {
		h.fail(w, http.StatusNotFound, msgNotFound)
		return
	}
	now := h.opt.Now()
	var p pendingLogin
	c, err := r.Cookie(loginCookie)
	q := r.URL.Query()
	if err != nil || h.signer.open(loginCookie, c.Value, &p) != nil || now.Unix() >= p.Expires ||
		q.Get("state") == "" || q.Get("state") != p.State {
		h.fail(w, http.StatusBadRequest, msgBadState)
		return
	}
	h.clearCookie(w, loginCookie)
	if q.Get("error") != "" || q.Get("code") == "" {
		h.fail(w, http.StatusForbidden, msgCancelled)
		return
	}
	log := h.opt.Logger.With("repo", p.Repo)
	tok, err := h.opt.OAuth.Exchange(r.Context(), q.Get("code"), h.redirectURI())
	if err != nil {
		log.Warn("details page: GitHub sign-in failed", "err", err)
		h.fail(w, http.StatusBadGateway, msgSignInFailed)
		return
	}
	owner, name, _ := strings.Cut(p.Repo, "/")
	login, ok, err := h.opt.OAuth.CanRead(r.Context(), tok, owner, name)
	if err != nil {
		log.Warn("details page: checking the reader's access", "err", err)
		h.fail(w, http.StatusBadGateway, msgSignInFailed)
		return
	}
	if !ok {
		log.Info("details page: signed-in user cannot read the repository", "actor", login)
		h.fail(w, http.StatusForbidden, msgNoAccess(login, p.Repo))
		return
	}
	s, had := h.readSession(r, now)
	if !had || s.Login != login {
		s = session{Login: login}
	}
	if !s.canRead(p.Repo) {
		s.Repos = append(s.Repos, strings.ToLower(p.Repo))
	}
	s.Expires = now.Add(sessionTTL).Unix()
	v, err := h.signer.seal(sessionCookie, s)
	if err != nil {
		h.fail(w, http.StatusInternalServerError, msgUnavailable)
		return
	}
	h.setCookie(w, sessionCookie, v, sessionTTL)
	http.Redirect(w, r, p.Next, http.StatusSeeOther)
}
