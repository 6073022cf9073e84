package details

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Cookies. The session names the GitHub user and the private repositories
// they proved they can read; it holds no token, so a stolen cookie reads
// nothing on GitHub. The login cookie carries one OAuth round trip's state.
const (
	sessionCookie = "verdict_session"
	loginCookie   = "verdict_login"
	sessionTTL    = 8 * time.Hour
	loginTTL      = 10 * time.Minute // GitHub's codes live as long
)

// session is a signed-in reader.
type session struct {
	Login string `json:"login"`
	// Repos are lower-cased owner/name of private repositories the user
	// read through GitHub at sign-in.
	Repos   []string `json:"repos"`
	Expires int64    `json:"exp"`
}

func (s session) canRead(repo string) bool {
	return slices.Contains(s.Repos, strings.ToLower(repo))
}

// pendingLogin is the state of one OAuth round trip.
type pendingLogin struct {
	State   string `json:"state"`
	Repo    string `json:"repo"` // the repository whose page asked
	Next    string `json:"next"` // the page to return to
	Expires int64  `json:"exp"`
}

// signer seals cookie values with HMAC-SHA256. Every replica derives the
// same key from the OAuth client secret, so any of them reads a cookie
// another one set.
type signer struct{ key []byte }

func newSigner(secret string) signer {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("verdict details-page cookies v1"))
	return signer{key: m.Sum(nil)}
}

// purpose binds a value to its cookie, so one cannot stand in for another.
func (s signer) mac(purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

func (s signer) seal(purpose string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b) + "." + enc.EncodeToString(s.mac(purpose, b)), nil
}

var errBadCookie = errors.New("cookie is not one Verdict signed")

func (s signer) open(purpose, value string, v any) error {
	p, sig, ok := strings.Cut(value, ".")
	if !ok {
		return errBadCookie
	}
	enc := base64.RawURLEncoding
	b, err1 := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(purpose, b)) {
		return errBadCookie
	}
	return json.Unmarshal(b, v)
}

func (h *Handler) readSession(r *http.Request, now time.Time) (session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return session{}, false
	}
	var s session
	if h.signer.open(sessionCookie, c.Value, &s) != nil || now.Unix() >= s.Expires || s.Login == "" {
		return session{}, false
	}
	return s, true
}

func (h *Handler) setCookie(w http.ResponseWriter, name, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: int(ttl.Seconds()),
		HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
}

func (h *Handler) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
}
