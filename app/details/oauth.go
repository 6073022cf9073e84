package details

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"golang.org/x/oauth2"

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

// config is the OAuth 2.0 web flow of this client: GitHub's endpoints, the
// client's credentials sent in the form, as GitHub expects them.
func (o *OAuth) config(redirectURI string) *oauth2.Config {
	return &oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, RedirectURL: redirectURI,
		Endpoint: oauth2.Endpoint{AuthURL: o.web("/login/oauth/authorize"), TokenURL: o.web("/login/oauth/access_token"),
			AuthStyle: oauth2.AuthStyleInParams}}
}

// AuthorizeURL is GitHub's authorization page for this client. The App's
// user tokens carry the App's permissions, so no scope is asked for.
func (o *OAuth) AuthorizeURL(redirectURI, state string) string {
	return o.config(redirectURI).AuthCodeURL(state, oauth2.SetAuthURLParam("allow_signup", "false"))
}

// Exchange trades an authorization code for the user's token
// (POST /login/oauth/access_token) through golang.org/x/oauth2, which also
// reads GitHub's refusals (answered 200 with an error field).
func (o *OAuth) Exchange(ctx context.Context, code, redirectURI string) (string, error) {
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	tok, err := o.config(redirectURI).Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc), code)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode != "" {
			return "", fmt.Errorf("GitHub refused the sign-in code: %s (%s)", re.ErrorCode, re.ErrorDescription)
		}
		return "", fmt.Errorf("trading the sign-in code for a token: %w", err)
	}
	return tok.AccessToken, nil
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
