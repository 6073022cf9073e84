package ghclient

import (
	"bytes"
	"container/list"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/verdict-bot/verdict/app/metrics"
)

// Conditional requests: GitHub answers a GET that names the ETag of the
// representation the client holds (If-None-Match) with 304 Not Modified
// when nothing changed, and a 304 does not count against the rate limit.
// Every GET of a client goes out conditionally once the client holds an
// answer with an ETag, and a 304 is handed on as that answer: callers see
// the same 200 they saw before, read afresh from GitHub's point of view.
// Nothing is answered without asking GitHub, so nothing can be stale.

const (
	// maxConditionalBody is the largest answer kept for revalidation.
	maxConditionalBody = 2 << 20
	// conditionalBytes bounds the answers one client keeps.
	conditionalBytes = 32 << 20
)

// conditional is the RoundTripper that revalidates GETs by ETag.
type conditional struct {
	base http.RoundTripper

	mu    sync.Mutex
	size  int64
	ll    *list.List
	items map[string]*list.Element
}

type heldAnswer struct {
	key    string
	etag   string
	header http.Header
	body   []byte
}

// Conditional wraps base so that its GETs are revalidated by ETag.
func Conditional(base http.RoundTripper) http.RoundTripper {
	return &conditional{base: base, ll: list.New(), items: map[string]*list.Element{}}
}

func conditionalKey(req *http.Request) string {
	return req.URL.String() + "\x00" + req.Header.Get("Accept")
}

func (c *conditional) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("If-None-Match") != "" || req.Header.Get("Range") != "" {
		return c.base.RoundTrip(req)
	}
	key := conditionalKey(req)
	held := c.get(key)
	out := req
	if held != nil {
		out = req.Clone(req.Context())
		out.Header.Set("If-None-Match", held.etag)
	}
	resp, err := c.base.RoundTrip(out)
	if err != nil {
		return resp, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && held != nil:
		metrics.NotModified(req.Method, Endpoint(req.URL.Path))
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		h := held.header.Clone()
		for k, v := range resp.Header {
			// The 304's own headers (rate limits, date) are the current ones.
			if strings.HasPrefix(k, "X-Ratelimit") || k == "Date" || k == "Etag" {
				h[k] = v
			}
		}
		return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor,
			ProtoMinor: resp.ProtoMinor, Header: h, Body: io.NopCloser(bytes.NewReader(held.body)),
			ContentLength: int64(len(held.body)), Request: req}, nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		buf, err := io.ReadAll(io.LimitReader(resp.Body, maxConditionalBody+1))
		if err != nil {
			resp.Body.Close()
			return nil, err
		}
		if len(buf) > maxConditionalBody {
			// Too large to keep: hand the answer on whole, unkept.
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
			return resp, nil
		}
		resp.Body.Close()
		c.put(&heldAnswer{key: key, etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: buf})
		resp.Body = io.NopCloser(bytes.NewReader(buf))
	}
	return resp, nil
}

func (c *conditional) get(key string) *heldAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil
	}
	c.ll.MoveToFront(e)
	return e.Value.(*heldAnswer)
}

func (c *conditional) put(a *heldAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[a.key]; ok {
		c.size -= int64(len(e.Value.(*heldAnswer).body))
		c.ll.Remove(e)
	}
	c.items[a.key] = c.ll.PushFront(a)
	c.size += int64(len(a.body))
	for c.size > conditionalBytes {
		e := c.ll.Back()
		old := e.Value.(*heldAnswer)
		c.ll.Remove(e)
		delete(c.items, old.key)
		c.size -= int64(len(old.body))
	}
}
