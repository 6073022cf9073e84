// Package ghjson writes GitHub's REST and webhook objects as the fake GitHub
// (app/githubtest) serves them: every field the API descriptions require,
// nullable ones as null, URLs under the fake's own address, so that clients
// decoding them see what GitHub sends. The contract tests
// (app/githubtest/contract) hold them to GitHub's descriptions.
//
// The builders are pure: the server looks up its state and passes what an
// object shows (a comment count, a tree SHA), and a Site supplies the
// fake's address and the fixture's App and clock.
package ghjson

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// Site is what every object's URLs, IDs and undated timestamps derive from:
// the fake's root URL (without trailing slash) and the fixture it serves.
type Site struct {
	URL string
	fx  *fixture.Fixture
}

// NewSite is the Site of a fake at url serving fx.
func NewSite(url string, fx *fixture.Fixture) Site { return Site{URL: url, fx: fx} }

// Write answers with v as JSON, as GitHub answers every API request.
func Write(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

// Error answers with GitHub's error object: a message and where the
// documentation is.
func Error(w http.ResponseWriter, status int, msg string) {
	Write(w, status, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

// ID is the stable numeric ID the fake gives a named thing (a login, a
// repository, a workflow path, a check suite), so that the same fixture
// always shows the same IDs.
func ID(name string) int64 {
	var h int64 = 7
	for _, c := range strings.ToLower(name) {
		h = (h*31 + int64(c)) % 100000000
	}
	return h + 1
}

// ISO is a timestamp as GitHub writes it, or null for the zero time.
func ISO(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// NodeID makes a GraphQL-style global ID: stable, opaque, unique per kind.
// The GraphQL endpoint decodes it back.
func NodeID(kind string, id int64) string {
	return base64.RawStdEncoding.EncodeToString([]byte(fmt.Sprintf("0%s:%d", kind, id)))
}

// ParseNodeID reads a node ID NodeID made; ok is false for any other.
func ParseNodeID(id string) (kind string, n int64, ok bool) {
	raw, err := base64.RawStdEncoding.DecodeString(id)
	if err != nil || len(raw) < 2 || raw[0] != '0' {
		return "", 0, false
	}
	kind, num, found := strings.Cut(string(raw[1:]), ":")
	n, err = strconv.ParseInt(num, 10, 64)
	if !found || err != nil {
		return "", 0, false
	}
	return kind, n, true
}

// since is a fixed date before the fixture's clock, for "created_at" of
// things a fixture does not date (users, repositories, the App).
func (s Site) since() string { return ISO(s.fx.Now.AddDate(-2, 0, 0)).(string) }
