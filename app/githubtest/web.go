package githubtest

import (
	"net/http"

	"github.com/verdict-bot/verdict/app/githubtest/webflow"
)

// The pages of github.com a browser goes through (package webflow): the
// OAuth web flow and the App manifest flow.

func init() {
	handle("GET", "/login/oauth/authorize", func(s *Server, w http.ResponseWriter, r *http.Request, p params) {
		s.oauth.ServeAuthorize(w, r)
	})
	handle("POST", "/login/oauth/access_token", func(s *Server, w http.ResponseWriter, r *http.Request, p params) {
		s.oauth.ServeAccessToken(w, r)
	})
	manifestForm := func(s *Server, w http.ResponseWriter, r *http.Request, p params) {
		s.manifests.ServeForm(w, r, p["org"])
	}
	handle("POST", "/settings/apps/new", manifestForm)
	handle("POST", "/organizations/{org}/settings/apps/new", manifestForm)
	handle("POST", "/app-manifests/{code}/conversions", func(s *Server, w http.ResponseWriter, r *http.Request, p params) {
		s.manifests.ServeConversion(w, p["code"], s.site)
	})
}

// OAuth is the App's OAuth web flow: register its client (SetApp) and sign
// the browser in (SetBrowserUser); the user tokens it issues authenticate
// on the REST API.
func (s *Server) OAuth() *webflow.OAuth { return s.oauth }

// Manifests is the App manifest flow, and the Apps registered through it.
func (s *Server) Manifests() *webflow.Manifests { return s.manifests }
