package githubtest

import (
	"bytes"
	"net/http"
	"sync"
)

// Exchange is one request the fake answered, as an observer sees it.
type Exchange struct {
	// Route is the fake's route template ("GET /repos/{owner}/{repo}/pulls/{number}"),
	// "" when no route matched; Params are its path parameters.
	Route  string
	Params map[string]string
	// Method, Path (without the GHES /api/v3 prefix), Query and Header are
	// the request's; RequestBody is what a write sent.
	Method        string
	Path, Query   string
	RequestHeader http.Header
	RequestBody   []byte
	// Status, Header and Body are the response's. Body holds at most
	// maxObservedBody bytes; BodyTruncated says when it holds fewer than
	// were sent.
	Status        int
	Header        http.Header
	Body          []byte
	BodyTruncated bool
	// Fault is set when a test's Fault answered instead of the fake.
	Fault bool
}

// maxObservedBody bounds the response bytes kept for an observer.
const maxObservedBody = 16 << 20

var (
	observeMu sync.RWMutex
	observer  func(Exchange)
)

// Observe makes f see every exchange of every fake in this process; nil
// stops it. Test mains use it to hold the fake to GitHub's API description
// (see app/githubtest/contract). f runs on the request's goroutine after
// the handler, before the response is complete.
func Observe(f func(Exchange)) {
	observeMu.Lock()
	defer observeMu.Unlock()
	observer = f
}

func currentObserver() func(Exchange) {
	observeMu.RLock()
	defer observeMu.RUnlock()
	return observer
}

// teeWriter keeps a copy of what a handler writes.
type teeWriter struct {
	http.ResponseWriter
	status    int
	body      bytes.Buffer
	truncated bool
	fault     bool
}

func (w *teeWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *teeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if room := maxObservedBody - w.body.Len(); room > 0 {
		w.body.Write(b[:min(len(b), room)])
		w.truncated = w.truncated || len(b) > room
	} else if len(b) > 0 {
		w.truncated = true
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes through, so that observing a server does not change
// when its bytes reach the client (a stalled body must arrive half sent).
func (w *teeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
