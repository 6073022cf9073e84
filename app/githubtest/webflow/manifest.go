package webflow

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// GitHub's App manifest flow, both halves: the web form a browser posts the
// manifest to (github.com/settings/apps/new, or under an organization), which
// answers with a redirect carrying a one-time code, and the REST conversion
// that trades the code for the new App's credentials.

// Manifest is the part of a GitHub App manifest the fake GitHub checks.
type Manifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description"`
	Public         bool   `json:"public"`
	HookAttributes struct {
		URL    string `json:"url"`
		Active *bool  `json:"active"`
	} `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
}

// RegisteredApp is an App created through the manifest flow.
type RegisteredApp struct {
	Org      string // "" when registered for the user
	Manifest Manifest
	Config   github.AppConfig
}

// Manifests is the manifest flow of one fake GitHub: the codes handed out
// and the Apps registered.
type Manifests struct {
	mu    sync.Mutex
	codes map[string]pendingApp
	apps  []RegisteredApp
	next  int64
}

type pendingApp struct {
	org     string
	m       Manifest
	expires time.Time
}

// NewManifests is a flow that has registered no App.
func NewManifests() *Manifests {
	return &Manifests{codes: map[string]pendingApp{}, next: 900000}
}

// Registered returns the Apps created through the manifest flow.
func (st *Manifests) Registered() []RegisteredApp {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]RegisteredApp(nil), st.apps...)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ServeForm is the browser's POST of the manifest form, for the user or
// (org not "") an organization. GitHub shows the user a confirmation page;
// the fake confirms at once and redirects to the manifest's redirect_url
// with the code and the caller's state.
func (st *Manifests) ServeForm(w http.ResponseWriter, r *http.Request, org string) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "unreadable form", http.StatusBadRequest)
		return
	}
	var m Manifest
	if err := json.Unmarshal([]byte(r.PostForm.Get("manifest")), &m); err != nil {
		http.Error(w, "Invalid GitHub App configuration: the manifest is not JSON", http.StatusUnprocessableEntity)
		return
	}
	if msg := checkManifest(m); msg != "" {
		http.Error(w, "Invalid GitHub App configuration: "+msg, http.StatusUnprocessableEntity)
		return
	}
	code := randomHex(10)
	st.mu.Lock()
	st.codes[code] = pendingApp{org: org, m: m, expires: time.Now().Add(time.Hour)}
	st.mu.Unlock()
	u, _ := url.Parse(m.RedirectURL)
	q := u.Query()
	q.Set("code", code)
	if st := r.URL.Query().Get("state"); st != "" {
		q.Set("state", st)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func checkManifest(m Manifest) string {
	absolute := func(s string) bool {
		u, err := url.Parse(s)
		return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
	}
	switch {
	case !absolute(m.URL):
		return "url must be an absolute URL"
	case m.RedirectURL != "" && !absolute(m.RedirectURL):
		return "redirect_url must be an absolute URL"
	case m.RedirectURL == "":
		return "redirect_url is required by the manifest flow"
	case (m.HookAttributes.Active == nil || *m.HookAttributes.Active) && !absolute(m.HookAttributes.URL):
		return "hook_attributes.url must be an absolute URL for an active webhook"
	}
	for k, v := range m.DefaultPermissions {
		if v != "read" && v != "write" && v != "admin" {
			return "default_permissions." + k + " must be read, write or admin"
		}
	}
	return ""
}

// ServeConversion is POST /app-manifests/{code}/conversions: it trades
// code (once, within an hour) for the App's ID, private key, webhook secret
// and OAuth credentials. site is the fake GitHub's, which the App and its
// owner are shown on.
func (st *Manifests) ServeConversion(w http.ResponseWriter, code string, site ghjson.Site) {
	st.mu.Lock()
	pa, ok := st.codes[code]
	delete(st.codes, code)
	if ok && time.Now().After(pa.expires) {
		ok = false
	}
	var id int64
	if ok {
		st.next++
		id = st.next
	}
	st.mu.Unlock()
	if !ok {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		ghjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	owner := pa.org
	if owner == "" {
		owner = "octocat"
	}
	slug := "verdict-" + randomHex(3)
	now := github.Timestamp{Time: time.Now().UTC().Truncate(time.Second)}
	cfg := github.AppConfig{
		ID: github.Int64(id), Slug: github.String(slug), NodeID: github.String("A_" + randomHex(6)),
		Owner: &github.User{Login: github.String(owner)},
		Name:  github.String(pa.m.Name), Description: github.String(pa.m.Description),
		ExternalURL: github.String(pa.m.URL), HTMLURL: github.String(site.URL + "/apps/" + slug),
		CreatedAt: &now, UpdatedAt: &now,
		ClientID: github.String("Iv1." + randomHex(8)), ClientSecret: github.String(randomHex(20)),
		WebhookSecret: github.String(randomHex(20)), PEM: github.String(pemKey),
	}
	st.mu.Lock()
	st.apps = append(st.apps, RegisteredApp{Org: pa.org, Manifest: pa.m, Config: cfg})
	st.mu.Unlock()
	// GitHub answers with the whole App: its owner as a full account and
	// the events and permissions it was registered with.
	raw, err := json.Marshal(cfg)
	if err != nil {
		ghjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		ghjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	ownerType := "User"
	if pa.org != "" {
		ownerType = "Organization"
	}
	out["owner"] = site.User(owner, ownerType)
	out["events"] = append([]string{}, pa.m.DefaultEvents...)
	perms := map[string]string{}
	for k, v := range pa.m.DefaultPermissions {
		perms[k] = v
	}
	out["permissions"] = perms
	ghjson.Write(w, http.StatusCreated, out)
}
