package githubtest

import (
	"net/http"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
	"github.com/verdict-bot/verdict/app/githubtest/hookshot"
)

// The App's webhook (package hookshot) and its delivery log's endpoints,
// which only the App's JWT may use.

func init() {
	handle("GET", "/app/hook/deliveries", func(s *Server, w http.ResponseWriter, r *http.Request, p params) {
		if requireJWT(w, r) {
			s.hooks.ServeDeliveries(w, r)
		}
	})
	handle("POST", "/app/hook/deliveries/{delivery_id}/attempts", func(s *Server, w http.ResponseWriter, r *http.Request, p params) {
		if requireJWT(w, r) {
			s.hooks.ServeRedelivery(w, p.int64("delivery_id"))
		}
	})
}

// Webhook is the App's webhook: point it at the App (Configure), deliver
// events to it (the *Event methods build them) and read its delivery log.
func (s *Server) Webhook() *hookshot.Hook { return s.hooks }

// requireJWT answers like GitHub when the App's delivery log is asked for
// with anything but the App's JWT.
func requireJWT(w http.ResponseWriter, r *http.Request) bool {
	if identityOf(r).jwt {
		return true
	}
	ghjson.Error(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
	return false
}
