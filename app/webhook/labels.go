package webhook

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/verdict-bot/verdict/app/router"
)

// knownEvents are the event names that may become a metric label: the
// events Verdict handles, and ping.
var knownEvents = func() map[string]bool {
	m := map[string]bool{"ping": true}
	for _, e := range router.Handles() {
		m[e] = true
	}
	return m
}()

// eventLabel is the metric label of an X-GitHub-Event value: the event
// itself when Verdict knows it, else "other", so that no request can add
// series (or an invalid UTF-8 label, which Prometheus refuses by panicking).
func eventLabel(event string) string {
	if knownEvents[event] {
		return event
	}
	return "other"
}

// maxLogged bounds a header value written to the log before the request is
// authenticated; a delivery ID is a 36-character GUID.
const maxLogged = 64

// bounded is s as it may be logged: valid UTF-8, at most maxLogged bytes.
func bounded(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxLogged {
		return s
	}
	cut := maxLogged
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// validDeliveryID: GitHub's delivery IDs are GUIDs; a signed request with
// something unprintable or long there did not come from GitHub's sender
// and must not reach the store.
func validDeliveryID(s string) bool {
	if len(s) > 128 || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
