// Package ghclient builds go-github clients for Verdict: token clients,
// GitHub App (JWT) and per-installation clients, all on a retrying,
// metered transport and against any REST base (api.github.com, GHES
// /api/v3/, or a test server).
package ghclient

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v62/github"
)

// DefaultBaseURL is the public GitHub REST base.
const DefaultBaseURL = "https://api.github.com/"

// Options configure the clients. The zero value is usable.
type Options struct {
	// Base is the transport under the retry layer (default: see NewTransport).
	Base  http.RoundTripper
	Retry RetryOptions
	// UserAgent defaults to "verdict".
	UserAgent string
	// Writes, when set, paces each installation's content-creating
	// requests (GitHub's secondary limits).
	Writes WriteBudget
	// MaxInFlight, when positive, bounds the requests in flight of all
	// the clients made together (every installation of an Apps).
	MaxInFlight int
	// Rates, when set, learns each installation's rate limit from its
	// responses, for admitting verifications (RateBook.Admit).
	Rates *RateBook
}

// pace wraps rt for installation's requests: writes by o.Writes, every
// request within inFlight.
func (o Options) pace(rt http.RoundTripper, installation int64, inFlight chan struct{}) http.RoundTripper {
	if o.Writes == nil && inFlight == nil && o.Rates == nil {
		return rt
	}
	return &paced{base: rt, installation: installation, budget: o.Writes, inFlight: inFlight, rates: o.Rates, sleep: sleepCtx}
}

func (o Options) inFlight() chan struct{} {
	if o.MaxInFlight <= 0 {
		return nil
	}
	return make(chan struct{}, o.MaxInFlight)
}

// ParseBaseURL normalizes a REST base: any http(s) URL, with the trailing
// slash go-github needs added when missing.
func ParseBaseURL(base string) (*url.URL, error) {
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("parsing GitHub API base %q: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("GitHub API base %q: want an absolute http(s) URL", base)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

func newClient(base *url.URL, rt http.RoundTripper, o Options) *github.Client {
	c := github.NewClient(&http.Client{Transport: rt})
	c.BaseURL = base
	c.UploadURL = base
	c.UserAgent = o.UserAgent
	if c.UserAgent == "" {
		c.UserAgent = "verdict"
	}
	return c
}

// NewToken returns a client that authenticates with a token (a PAT or an
// installation token); an empty token gives an unauthenticated client.
func NewToken(baseURL, token string, opts ...Options) (*github.Client, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	u, err := ParseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	var rt http.RoundTripper = NewTransport(o.Base, o.Retry)
	if token != "" {
		rt = &tokenTransport{token: token, base: rt}
	}
	return newClient(u, Conditional(o.pace(rt, 0, o.inFlight())), o), nil
}

type tokenTransport struct {
	token string
	base  http.RoundTripper
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// Apps makes GitHub App clients: the App itself (JWT) and one cached client
// per installation, whose tokens ghinstallation mints and refreshes.
type Apps struct {
	base *url.URL
	o    Options
	atr  *ghinstallation.AppsTransport
	app  *github.Client

	// inFlight bounds the requests of every installation's client.
	inFlight chan struct{}

	mu      sync.Mutex
	clients map[int64]*github.Client
}

// NewApps parses the App's PEM private key and prepares the clients.
func NewApps(baseURL string, appID int64, privateKeyPEM []byte, opts ...Options) (*Apps, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	u, err := ParseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	// Token minting goes through the retrying transport too, so it is
	// retried and metered like every other call.
	atr, err := ghinstallation.NewAppsTransport(NewTransport(o.Base, o.Retry), appID, privateKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("GitHub App %d: reading private key: %w", appID, err)
	}
	atr.BaseURL = strings.TrimSuffix(u.String(), "/")
	return &Apps{base: u, o: o, atr: atr, app: newClient(u, atr, o), inFlight: o.inFlight(), clients: map[int64]*github.Client{}}, nil
}

// App returns the client authenticated as the App (JWT), for /app and
// installation look-ups.
func (a *Apps) App() *github.Client { return a.app }

// Installation returns the cached client for an installation.
func (a *Apps) Installation(id int64) (*github.Client, error) {
	if id <= 0 {
		return nil, fmt.Errorf("installation id %d: must be positive", id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.clients[id]; ok {
		return c, nil
	}
	itr := ghinstallation.NewFromAppsTransport(a.atr, id)
	itr.BaseURL = a.atr.BaseURL
	c := newClient(a.base, Conditional(a.o.pace(itr, id, a.inFlight)), a.o)
	a.clients[id] = c
	return c, nil
}
