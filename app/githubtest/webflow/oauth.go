// Package webflow is the fake GitHub's pages on github.com that a browser
// goes through, as opposed to its REST API: the OAuth web application flow
// (an App's user authorization) and the App manifest flow (registering an
// App from a manifest). Each flow keeps its own state and serves its pages;
// the fake GitHub routes requests to them.
package webflow

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// GitHub's OAuth web application flow, as an App's user authorization
// uses it: the browser is sent to /login/oauth/authorize, GitHub redirects
// it back to the redirect_uri with a one-time code and the caller's state,
// and the App trades the code for a user token at /login/oauth/access_token.
//
// The fake has no login page: the browser's GitHub session is the login
// SetBrowserUser names. Codes are single-use and expire after ten minutes;
// the user tokens (gho_…) authenticate as that user on the REST API.

// OAuthApp is the OAuth client of the fixture's App.
type OAuthApp struct {
	ClientID, ClientSecret string
	// CallbackURL is the App's registered callback; a redirect_uri must
	// have its scheme, host and port, and a path under its path. Empty
	// accepts any redirect_uri.
	CallbackURL string
}

type oauthCode struct {
	login, clientID, redirectURI string
	expires                      time.Time
}

// OAuth is the OAuth web flow of one fake GitHub: the App's OAuth client,
// who the browser is signed in as, the codes handed out and the user
// tokens they were traded for.
type OAuth struct {
	mu      sync.Mutex
	app     OAuthApp
	browser string // the login of the browser's GitHub session
	codes   map[string]oauthCode
	tokens  map[string]string // gho_ token -> login
}

// NewOAuth is a flow with no OAuth client registered and nobody signed in.
func NewOAuth() *OAuth {
	return &OAuth{codes: map[string]oauthCode{}, tokens: map[string]string{}}
}

// SetApp registers the App's OAuth client credentials.
func (st *OAuth) SetApp(a OAuthApp) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.app = a
}

// SetBrowserUser signs the browser in to GitHub as login ("" signs out).
func (st *OAuth) SetBrowserUser(login string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.browser = login
}

// Login is the user a gho_ token was issued to; the fake's REST API
// authenticates such a token as that user.
func (st *OAuth) Login(tok string) (string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	login, ok := st.tokens[tok]
	return login, ok
}

// ServeAuthorize is GET /login/oauth/authorize: the browser, signed in,
// is sent back to the redirect_uri with a one-time code.
func (st *OAuth) ServeAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	st.mu.Lock()
	app, browser := st.app, st.browser
	st.mu.Unlock()
	if app.ClientID == "" || q.Get("client_id") != app.ClientID {
		// GitHub shows a 404 page for an unknown client.
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" {
		redirect = app.CallbackURL
	}
	target, err := url.Parse(redirect)
	if err != nil || !callbackAllows(app.CallbackURL, target) {
		// GitHub redirects to the registered callback with the error.
		back, err := url.Parse(app.CallbackURL)
		if err != nil || app.CallbackURL == "" {
			http.Error(w, "The redirect_uri is not associated with this application.", http.StatusBadRequest)
			return
		}
		v := back.Query()
		v.Set("error", "redirect_uri_mismatch")
		v.Set("error_description", "The redirect_uri MUST match the registered callback URL for this application.")
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
		return
	}
	if browser == "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("<!DOCTYPE html><title>Sign in to GitHub</title><p>Sign in to GitHub to continue.</p>"))
		return
	}
	code := randomHex(10)
	st.mu.Lock()
	st.codes[code] = oauthCode{login: browser, clientID: app.ClientID, redirectURI: q.Get("redirect_uri"), expires: time.Now().Add(10 * time.Minute)}
	st.mu.Unlock()
	v := target.Query()
	v.Set("code", code)
	if state := q.Get("state"); state != "" {
		v.Set("state", state)
	}
	target.RawQuery = v.Encode()
	http.Redirect(w, r, target.String(), http.StatusFound)
}

// callbackAllows applies GitHub's redirect_uri rule: same scheme, host and
// port as the callback URL, and a path at or under its path.
func callbackAllows(callback string, u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	if callback == "" {
		return true
	}
	c, err := url.Parse(callback)
	if err != nil {
		return false
	}
	base := strings.TrimSuffix(c.Path, "/")
	return c.Scheme == u.Scheme && c.Host == u.Host && (u.Path == c.Path || strings.HasPrefix(u.Path, base+"/"))
}

// ServeAccessToken is POST /login/oauth/access_token: it trades a code for
// a user token. Like GitHub it answers
// errors with 200 and an error field, and form-encoded unless the client
// asks for JSON.
func (st *OAuth) ServeAccessToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "unreadable form", http.StatusBadRequest)
		return
	}
	f := r.Form // GitHub reads the parameters from the query or the body
	st.mu.Lock()
	c, ok := st.codes[f.Get("code")]
	out := url.Values{}
	switch {
	case st.app.ClientID == "" || f.Get("client_id") != st.app.ClientID || f.Get("client_secret") != st.app.ClientSecret:
		out.Set("error", "incorrect_client_credentials")
		out.Set("error_description", "The client_id and/or client_secret passed are incorrect.")
	case !ok || time.Now().After(c.expires) || c.clientID != f.Get("client_id"):
		out.Set("error", "bad_verification_code")
		out.Set("error_description", "The code passed is incorrect or expired.")
	case c.redirectURI != "" && f.Get("redirect_uri") != c.redirectURI:
		out.Set("error", "redirect_uri_mismatch")
		out.Set("error_description", "The redirect_uri MUST match the registered callback URL for this application.")
	default:
		tok := "gho_" + randomHex(18)
		st.tokens[tok] = c.login
		out.Set("access_token", tok)
		out.Set("token_type", "bearer")
		out.Set("scope", "")
	}
	if ok && out.Get("error") != "incorrect_client_credentials" {
		delete(st.codes, f.Get("code")) // a code is good for one try
	}
	st.mu.Unlock()
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		m := map[string]string{}
		for k := range out {
			m[k] = out.Get(k)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		json.NewEncoder(w).Encode(m)
		return
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	w.Write([]byte(out.Encode()))
}
