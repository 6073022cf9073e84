package details

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
)

// OAuth is the App's OAuth client on one GitHub (github.com, an Enterprise
// Server, or a test server).
type OAuth struct {
	ClientID, ClientSecret string
	// WebURL is where /login/oauth/* lives (https://github.com/).
	WebURL string
	// APIURL is the REST base the user's token is used on.
	APIURL string
	// HTTP posts the code exchange; nil means a client with a 10 s timeout.
	HTTP *http.Client
	// Retry tunes the user-token REST client.
	Retry ghclient.RetryOptions
}

func (o *OAuth) web(path string) string {
	return strings.TrimSuffix(o.WebURL, "/") + path
}

// AuthorizeURL is GitHub's authorization page for this client. The App's
// user tokens carry the App's permissions, so no scope is asked for.
func (o *OAuth) AuthorizeURL(redirectURI, state string) string {
	q := url.Values{"client_id": {o.ClientID}, "redirect_uri": {redirectURI}, "state": {state}, "allow_signup": {"false"}}
	return o.web("/login/oauth/authorize") + "?" + q.Encode()
}

// Exchange trades an authorization code for the user's token
// (POST /login/oauth/access_token). GitHub answers refusals with 200 and
// an error field.
func (o *OAuth) Exchange(ctx context.Context, code, redirectURI string) (string, error) {
	form := url.Values{"client_id": {o.ClientID}, "client_secret": {o.ClientSecret}, "code": {code}, "redirect_uri": {redirectURI}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.web("/login/oauth/access_token"), strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("building the token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("trading the sign-in code for a token: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", fmt.Errorf("reading GitHub's token answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("trading the sign-in code for a token: GitHub answered %s", resp.Status)
	}
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("GitHub's token answer is not JSON: %w", err)
	}
	if out.Error != "" || out.AccessToken == "" {
		return "", fmt.Errorf("GitHub refused the sign-in code: %s (%s)", out.Error, out.Description)
	}
	return out.AccessToken, nil
}

// CanRead reports who token belongs to and whether they can read the
// repository: GitHub answers GET /repos/{owner}/{repo} with 404 to anyone
// who cannot.
func (o *OAuth) CanRead(ctx context.Context, token, owner, repo string) (login string, ok bool, err error) {
	gh, err := ghclient.NewToken(o.APIURL, token, ghclient.Options{Retry: o.Retry})
	if err != nil {
		return "", false, err
	}
	u, _, err := gh.Users.Get(ctx, "")
	if err != nil {
		return "", false, fmt.Errorf("reading the signed-in user: %w", err)
	}
	_, _, err = gh.Repositories.Get(ctx, owner, repo)
	var ge *github.ErrorResponse
	switch {
	case err == nil:
		return u.GetLogin(), true, nil
	case errors.As(err, &ge) && ge.Response != nil && (ge.Response.StatusCode == http.StatusNotFound || ge.Response.StatusCode == http.StatusForbidden):
		return u.GetLogin(), false, nil
	default:
		return u.GetLogin(), false, fmt.Errorf("reading %s/%s as %s: %w", owner, repo, u.GetLogin(), err)
	}
}
