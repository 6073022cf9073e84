package githubtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// PageTransport returns an http.RoundTripper that answers GET requests for
// the fixture's published pages (404 for any other URL) without touching
// the network. Hand it to the Source's page client. Latency applies.
func (s *Server) PageTransport() http.RoundTripper { return pageTransport{s} }

// PageCalls counts fetches of url through PageTransport.
func (s *Server) PageCalls(url string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages[url]
}

type pageTransport struct{ s *Server }

func (t pageTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	u := r.URL.String()
	t.s.mu.Lock()
	t.s.pages[u]++
	p := t.s.fx.Pages[u]
	latency := t.s.latency
	t.s.mu.Unlock()
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	resp := &http.Response{Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		resp.StatusCode = http.StatusMethodNotAllowed
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, nil
	}
	if p == nil {
		resp.StatusCode = http.StatusNotFound
		resp.Status = "404 Not Found"
		resp.Header.Set("Content-Type", "text/html; charset=utf-8")
		body := []byte("<html><body><h1>404</h1></body></html>")
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		return resp, nil
	}
	ct := p.ContentType
	if ct == "" {
		ct = "text/html; charset=utf-8"
	}
	resp.StatusCode = p.Status
	resp.Status = fmt.Sprintf("%d %s", p.Status, http.StatusText(p.Status))
	resp.Header.Set("Content-Type", ct)
	resp.Header.Set("Content-Length", strconv.Itoa(len(p.Body)))
	resp.ContentLength = int64(len(p.Body))
	resp.Body = io.NopCloser(bytes.NewReader([]byte(p.Body)))
	return resp, nil
}
