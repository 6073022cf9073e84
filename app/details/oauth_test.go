package details

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/webflow"
)

// The code exchange through golang.org/x/oauth2 against GitHub's web flow:
// the authorize URL carries what GitHub needs, a code gives the user's
// token once, and GitHub's refusals (200 with an error) are errors.
func TestOAuthExchange(t *testing.T) {
	gh := githubtest.New(t, fixture.New("verdict"))
	const callback = "http://app.example/auth/callback"
	gh.OAuth().SetApp(webflow.OAuthApp{ClientID: "Iv1.verdict", ClientSecret: "oauth-secret", CallbackURL: callback})
	gh.OAuth().SetBrowserUser("reader")
	o := &OAuth{ClientID: "Iv1.verdict", ClientSecret: "oauth-secret", WebURL: gh.URL, APIURL: gh.BaseURL()}

	u, err := url.Parse(o.AuthorizeURL(callback, "st4te"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Path != "/login/oauth/authorize" || q.Get("client_id") != "Iv1.verdict" || q.Get("state") != "st4te" ||
		q.Get("redirect_uri") != callback || q.Get("allow_signup") != "false" || q.Has("scope") {
		t.Fatalf("authorize URL %s", u)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := resp.Location()
	code := loc.Query().Get("code")
	if code == "" {
		t.Fatalf("no code: %d %v", resp.StatusCode, loc)
	}
	tok, err := o.Exchange(context.Background(), code, callback)
	if err != nil || !strings.HasPrefix(tok, "gho_") {
		t.Fatalf("Exchange = %q, %v", tok, err)
	}
	if _, err := o.Exchange(context.Background(), code, callback); err == nil || !strings.Contains(err.Error(), "bad_verification_code") {
		t.Errorf("a code used twice: %v", err)
	}
	o.ClientSecret = "wrong"
	if _, err := o.Exchange(context.Background(), "anything", callback); err == nil || !strings.Contains(err.Error(), "incorrect_client_credentials") {
		t.Errorf("a wrong secret: %v", err)
	}
}
