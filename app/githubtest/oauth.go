package githubtest

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
// https://docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/generating-a-user-access-token-for-a-github-app
//
// The fake has no login page: the browser's GitHub session is the login
// SetBrowserUser names. Codes are single-use and expire after ten minutes;
// the user tokens (gho_…) authenticate as that user on the REST API.

func init() {
	handle("GET", "/login/oauth/authorize", (*Server).oauthAuthorize)
	handle("POST", "/login/oauth/access_token", (*Server).oauthAccessToken)
}

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

type oauthState struct {
	app     OAuthApp
	browser string // the login of the browser's GitHub session
	codes   map[string]oauthCode
	tokens  map[string]string // gho_ token -> login
}

var oauths = struct {
	mu sync.Mutex
	m  map[*Server]*oauthState
}{m: map[*Server]*oauthState{}}

func (s *Server) oauth() *oauthState {
	st := oauths.m[s]
	if st == nil {
		st = &oauthState{codes: map[string]oauthCode{}, tokens: map[string]string{}}
		oauths.m[s] = st
	}
	return st
}

// SetOAuthApp registers the App's OAuth client credentials.
func (s *Server) SetOAuthApp(a OAuthApp) {
	oauths.mu.Lock()
	defer oauths.mu.Unlock()
	s.oauth().app = a
}

// SetBrowserUser signs the browser in to GitHub as login ("" signs out).
func (s *Server) SetBrowserUser(login string) {
	oauths.mu.Lock()
	defer oauths.mu.Unlock()
	s.oauth().browser = login
}

// oauthLogin is the user a gho_ token was issued to.
func (s *Server) oauthLogin(tok string) (string, bool) {
	oauths.mu.Lock()
	defer oauths.mu.Unlock()
	login, ok := s.oauth().tokens[tok]
	return login, ok
}

func (s *Server) oauthAuthorize(w http.ResponseWriter, r *http.Request, p params) {
	q := r.URL.Query()
	oauths.mu.Lock()
	st := s.oauth()
	app, browser := st.app, st.browser
	oauths.mu.Unlock()
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
	oauths.mu.Lock()
	st.codes[code] = oauthCode{login: browser, clientID: app.ClientID, redirectURI: q.Get("redirect_uri"), expires: time.Now().Add(10 * time.Minute)}
	oauths.mu.Unlock()
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

// oauthAccessToken trades a code for a user token. Like GitHub it answers
// errors with 200 and an error field, and form-encoded unless the client
// asks for JSON.
func (s *Server) oauthAccessToken(w http.ResponseWriter, r *http.Request, p params) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "unreadable form", http.StatusBadRequest)
		return
	}
	f := r.Form // GitHub reads the parameters from the query or the body
	oauths.mu.Lock()
	st := s.oauth()
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
	oauths.mu.Unlock()
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
