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

// History reads a PR's recorded events, newest first.
type History interface {
	History(ctx context.Context, repo string, pr, limit int) ([]store.Event, error)
}

// Visibility tells whether a repository is private, asking GitHub as the
// App's installation on it.
type Visibility interface {
	// Private returns ErrNotInstalled when the App cannot see the
	// repository.
	Private(ctx context.Context, owner, repo string) (bool, error)
}

// ErrNotInstalled: the App is not installed on the repository (or it does
// not exist); its page does not exist either.
var ErrNotInstalled = errors.New("the App is not installed on this repository")

// maxEvents bounds one page; the CLI reads the whole history.
const maxEvents = 500

// visibilityTTL is how long a repository's visibility is trusted.
const visibilityTTL = time.Minute

// Options configure a Handler.
type Options struct {
	History    History
	Visibility Visibility
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

	mu  sync.Mutex
	vis map[string]visibility
}

type visibility struct {
	private bool
	until   time.Time
}

// New returns the handler; Routes mounts it.
func New(o Options) *Handler {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &Handler{opt: o, secure: strings.HasPrefix(o.PublicURL, "https://"), vis: map[string]visibility{}}
	if o.OAuth != nil {
		h.signer = newSigner(o.OAuth.ClientSecret)
	}
	return h
}

// Routes mounts GET /pr/{owner}/{repo}/{number} and GET /auth/callback.
func (h *Handler) Routes(r chi.Router) {
	r.Get("/pr/{owner}/{repo}/{number}", h.page)
	r.Get("/auth/callback", h.callback)
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
	private, err := h.private(r.Context(), owner, repo)
	switch {
	case errors.Is(err, ErrNotInstalled):
		h.fail(w, http.StatusNotFound, msgNotFound)
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
		viewer = s.Login
	}
	events, err := h.opt.History.History(r.Context(), full, n, maxEvents)
	if err != nil {
		log.Error("details page: reading the history", "err", err)
		h.fail(w, http.StatusInternalServerError, msgUnavailable)
		return
	}
	v := buildPage(full, n, events)
	v.Viewer, v.Private = viewer, private
	if h.opt.WebURL != "" {
		v.PRURL = strings.TrimSuffix(h.opt.WebURL, "/") + "/" + full + "/pull/" + strconv.Itoa(n)
	}
	h.render(w, http.StatusOK, v)
}

// private asks Visibility, remembering the answer for a minute: every view
// of a page would otherwise cost two GitHub requests.
func (h *Handler) private(ctx context.Context, owner, repo string) (bool, error) {
	key := strings.ToLower(owner + "/" + repo)
	now := h.opt.Now()
	h.mu.Lock()
	v, ok := h.vis[key]
	h.mu.Unlock()
	if ok && now.Before(v.until) {
		return v.private, nil
	}
	p, err := h.opt.Visibility.Private(ctx, owner, repo)
	if err != nil {
		return false, err
	}
	h.mu.Lock()
	if len(h.vis) > 10000 {
		h.vis = map[string]visibility{}
	}
	h.vis[key] = visibility{private: p, until: now.Add(visibilityTTL)}
	h.mu.Unlock()
	return p, nil
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
