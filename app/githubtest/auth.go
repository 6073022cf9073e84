package githubtest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

func init() {
	handle("GET", "/user", (*Server).getAuthenticatedUser)
}

// identity is who a request authenticates as.
type identity struct {
	// login is the author of what the request writes ("" when anonymous).
	login string
	// app is set for the App's installation tokens and its JWT: only they
	// may use the Checks API.
	app bool
	// jwt is the App itself, which may only use the /app endpoints.
	jwt bool
}

type identityKey struct{}

// InstallationToken is an installation token of the fixture's App that
// the server accepts (as it accepts every ghs_ token it minted).
func (s *Server) InstallationToken() string {
	return fmt.Sprintf("ghs_fixture_%d", s.fx.App.InstallationID)
}

// authenticate reads the Authorization header the way GitHub does: an App
// JWT, an installation token (ghs_), or a personal token the fixture
// declares; anything else is a bad credential.
func (s *Server) authenticate(r *http.Request) (identity, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return identity{}, true
	}
	_, tok, ok := strings.Cut(h, " ")
	if !ok {
		return identity{}, false
	}
	switch {
	case strings.HasPrefix(tok, "eyJ") && strings.Count(tok, ".") == 2:
		return identity{app: true, jwt: true}, s.knownIssuer(tok)
	case strings.HasPrefix(tok, "ghs_"):
		return identity{login: s.fx.App.BotLogin, app: true}, true
	}
	if login, ok := s.fx.Tokens[tok]; ok {
		return identity{login: login}, true
	}
	if login, ok := s.oauth.Login(tok); ok {
		return identity{login: login}, true
	}
	return identity{}, false
}

func withIdentity(r *http.Request, id identity) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), identityKey{}, id))
}

func identityOf(r *http.Request) identity {
	id, _ := r.Context().Value(identityKey{}).(identity)
	return id
}

// actor is the login a write of r is attributed to and its account type.
func actor(r *http.Request) (login, typ string) {
	id := identityOf(r)
	if id.app {
		return id.login, "Bot"
	}
	return id.login, "User"
}

// requireApp answers like GitHub when anything but a GitHub App uses the
// Checks API for writing.
func requireApp(w http.ResponseWriter, r *http.Request) bool {
	if identityOf(r).app {
		return true
	}
	ghjson.Write(w, http.StatusForbidden, map[string]string{"message": "You must authenticate via a GitHub App.",
		"documentation_url": "https://docs.github.com/rest/checks/runs#create-a-check-run"})
	return false
}

func (s *Server) getAuthenticatedUser(w http.ResponseWriter, r *http.Request, p params) {
	id := identityOf(r)
	switch {
	case id.login == "" && !id.app:
		ghjson.Error(w, http.StatusUnauthorized, "Requires authentication")
		return
	case id.app:
		ghjson.Error(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ghjson.Write(w, http.StatusOK, s.site.PrivateUser(id.login))
}

// knownIssuer reports whether a JWT's issuer (iss) is an App this server
// knows: the fixture's, or one registered through the manifest flow, by ID
// or client ID. GitHub refuses a JWT of any other App with 401. (The
// signature is not checked: the fixture's App has no key here.)
func (s *Server) knownIssuer(jwt string) bool {
	parts := strings.Split(jwt, ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var claims struct {
		Iss any `json:"iss"`
	}
	if json.Unmarshal(raw, &claims) != nil {
		return false
	}
	iss := fmt.Sprint(claims.Iss)
	if f, ok := claims.Iss.(float64); ok {
		iss = strconv.FormatInt(int64(f), 10)
	}
	if iss == strconv.FormatInt(s.fx.App.ID, 10) {
		return true
	}
	for _, a := range s.manifests.Registered() {
		if iss == strconv.FormatInt(a.Config.GetID(), 10) || iss == a.Config.GetClientID() {
			return true
		}
	}
	return false
}

// AppJWT is a JWT of the fixture's App as this server reads it (shape and
// issuer; it is not signed), for tests that call the /app endpoints.
func (s *Server) AppJWT() string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"iss":%d}`, s.fx.App.ID)
	return enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc([]byte(claims)) + "." + enc([]byte("sig"))
}
