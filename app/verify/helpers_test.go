package verify_test

import (
	"net/http"
	"time"

	"github.com/verdict-bot/verdict/app/githubtest"
)

// srvPageClient serves published pages from the fixture, so no test leaves
// the machine.
func srvPageClient(srv *githubtest.Server) *http.Client {
	return &http.Client{Transport: srv.PageTransport(), Timeout: 20 * time.Second}
}
