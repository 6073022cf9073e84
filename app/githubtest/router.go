package githubtest

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
)

// --- request plumbing ---

type route struct {
	method string
	name   string
	re     *regexp.Regexp
	h      func(s *Server, w http.ResponseWriter, r *http.Request, p params)
}

type params map[string]string

func (p params) int(k string) int {
	n, _ := strconv.Atoi(p[k])
	return n
}

func (p params) int64(k string) int64 {
	n, _ := strconv.ParseInt(p[k], 10, 64)
	return n
}

var routes []route

// handle registers a route. The template uses {name} for one path segment
// and {name...} for the rest of the path; the template is also the call
// counter's name.
func handle(method, tmpl string, h func(s *Server, w http.ResponseWriter, r *http.Request, p params)) {
	var re strings.Builder
	re.WriteString("^")
	for _, part := range strings.Split(tmpl, "/")[1:] {
		re.WriteString("/")
		switch {
		case strings.HasPrefix(part, "{") && strings.HasSuffix(part, "...}"):
			fmt.Fprintf(&re, "(?P<%s>.+)", strings.TrimSuffix(strings.TrimPrefix(part, "{"), "...}"))
		case strings.HasPrefix(part, "{"):
			fmt.Fprintf(&re, "(?P<%s>[^/]+)", strings.Trim(part, "{}"))
		default:
			re.WriteString(regexp.QuoteMeta(part))
		}
	}
	re.WriteString("$")
	routes = append(routes, route{method: method, name: method + " " + tmpl, re: regexp.MustCompile(re.String()), h: h})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/api/v3")
	if p == "" {
		p = "/"
	}
	var rt *route
	var ps params
	allowed := false
	for i := range routes {
		m := routes[i].re.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		allowed = true
		if routes[i].method != r.Method {
			continue
		}
		rt = &routes[i]
		ps = params{}
		for j, n := range rt.re.SubexpNames() {
			if n != "" {
				ps[n] = m[j]
			}
		}
		break
	}
	name := r.Method + " (unknown)"
	if rt != nil {
		name = rt.name
	}
	if s.tracingOn() {
		tw, done := s.traced(w, r, rt, ps, p)
		defer done()
		w = tw
	}
	if obs := currentObserver(); obs != nil {
		tee := &teeWriter{ResponseWriter: w}
		ex := Exchange{Params: ps, Method: r.Method, Path: p, Query: r.URL.RawQuery, RequestHeader: r.Header.Clone()}
		if rt != nil {
			ex.Route = rt.name
		}
		if r.Body != nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			ex.RequestBody = body
		}
		defer func() {
			ex.Status, ex.Header, ex.Body, ex.BodyTruncated = tee.status, tee.Header().Clone(), tee.body.Bytes(), tee.truncated
			obs(ex)
		}()
		w = tee
		defer func() { ex.Fault = tee.fault }()
	}
	s.mu.Lock()
	s.calls[name]++
	s.pathCalls[r.Method+" "+p]++
	uri := r.Method + " " + withQuery(p, r.URL.RawQuery)
	s.uriCalls[uri]++
	s.total++
	if !strings.HasPrefix(p, "/_") { // artifact storage is another host, not the API
		s.inFlight++
		s.peakInFlight = max(s.peakInFlight, s.inFlight)
		defer func() {
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
		}()
	}
	latency := s.latency
	fault := s.matchFault(r, p)
	if fault == nil {
		fault = s.mixFault(uri, p, s.uriCalls[uri])
	}
	hook := s.hook
	s.mu.Unlock()

	delay := latency
	if fault != nil {
		delay += fault.Delay
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if fault != nil {
		if tee, ok := w.(*teeWriter); ok {
			tee.fault = true
		}
	}
	if fault != nil && fault.StallBody > 0 {
		rec := httptest.NewRecorder()
		s.answer(rec, r, rt, ps, allowed, p, hook)
		stallBody(w, r, rec, fault.StallBody)
		return
	}
	if fault != nil && fault.Status != 0 {
		for k, v := range fault.Header {
			w.Header().Set(k, v)
		}
		body := fault.Body
		if body == "" {
			body = fmt.Sprintf(`{"message":%q}`, http.StatusText(fault.Status))
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(fault.Status)
		io.WriteString(w, body)
		return
	}
	s.answer(w, r, rt, ps, allowed, p, hook)
}

// answer serves r by its route (404 or 405 without one) and reports it to
// the hook before returning.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, rt *route, ps params, allowed bool, p string, hook func(Served)) {
	s.rateHeaders(w)
	id, ok := s.authenticate(r)
	if !ok {
		ghjson.Error(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	r = withIdentity(r, id)
	if id.login == "" && !id.app && r.Method != http.MethodGet && r.Method != http.MethodHead && rt != nil && !anonymousWrite(p) {
		ghjson.Error(w, http.StatusUnauthorized, "Requires authentication")
		return
	}
	if rt == nil {
		if allowed {
			ghjson.Error(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		ghjson.Error(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		if err != nil {
			ghjson.Error(w, http.StatusBadRequest, "unreadable body")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusRecorder{ResponseWriter: w}
		rt.h(s, rec, r, ps)
		if !strings.HasSuffix(rt.name, "graphql") || graphQLMutation(body) { // a GraphQL query reads
			s.mu.Lock()
			s.writes = append(s.writes, Write{Method: r.Method, Path: p, Query: r.URL.RawQuery, Body: body, Status: rec.status, At: time.Now()})
			s.mu.Unlock()
		}
		if hook != nil {
			hook(Served{Method: r.Method, Path: p, Query: r.URL.RawQuery, Status: rec.status, Body: body})
		}
		return
	}
	var status int
	if r.Method == http.MethodGet && !strings.HasPrefix(p, "/_") {
		status = s.answerConditional(w, r, rt, ps)
	} else {
		rec := &statusRecorder{ResponseWriter: w}
		rt.h(s, rec, r, ps)
		status = rec.status
	}
	if hook != nil {
		hook(Served{Method: r.Method, Path: p, Query: r.URL.RawQuery, Status: status})
	}
}

// answerConditional answers a GET as GitHub does: every 200 carries an
// ETag of its representation, and a request naming that ETag in
// If-None-Match gets 304 Not Modified without a body, which does not count
// against the rate limit.
func (s *Server) answerConditional(w http.ResponseWriter, r *http.Request, rt *route, ps params) int {
	rec := httptest.NewRecorder()
	rt.h(s, rec, r, ps)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	body := rec.Body.Bytes()
	if rec.Code == http.StatusOK {
		sum := sha1.Sum(append([]byte(r.Header.Get("Accept")+"\x00"), body...))
		etag := `"` + hex.EncodeToString(sum[:]) + `"`
		w.Header().Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			s.mu.Lock()
			s.notModified++
			s.mu.Unlock()
			h := w.Header()
			h.Del("Content-Type")
			h.Del("Content-Length")
			h.Del("Link")
			w.WriteHeader(http.StatusNotModified)
			return http.StatusNotModified
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(body)
	return rec.Code
}

// etagMatches applies If-None-Match: a list of (possibly weak) tags or *.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// stallBody sends rec's answer with a pause of d in the middle of its body.
func stallBody(w http.ResponseWriter, r *http.Request, rec *httptest.ResponseRecorder, d time.Duration) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	body := rec.Body.Bytes()
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-time.After(d):
	case <-r.Context().Done():
		return
	}
	w.Write(body[len(body)/2:])
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (s *Server) rateHeaders(w http.ResponseWriter) {
	s.mu.Lock()
	used := s.total - s.notModified + s.spent
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, 5000-used)))
	h.Set("X-RateLimit-Used", strconv.Itoa(min(used, 5000)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
}

// paginate slices items by per_page/page and sets GitHub's Link header.
func paginate[T any](w http.ResponseWriter, r *http.Request, items []T) []T {
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	last := max(1, (len(items)+perPage-1)/perPage)
	link := func(n int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(perPage))
		return fmt.Sprintf(`<http://%s%s?%s>; rel="%s"`, r.Host, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(page-1, "prev"), link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	start := (page - 1) * perPage
	if start >= len(items) {
		return []T{}
	}
	return items[start:min(len(items), start+perPage)]
}

func (s *Server) repo(w http.ResponseWriter, p params) *repoState {
	rs := s.repos[strings.ToLower(p["owner"]+"/"+p["repo"])]
	if rs == nil {
		ghjson.Error(w, http.StatusNotFound, "Not Found")
	}
	return rs
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		ghjson.Error(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func ts(t time.Time) *github.Timestamp {
	if t.IsZero() {
		return nil
	}
	return &github.Timestamp{Time: t}
}

func ghUser(login, typ string) *github.User {
	if typ == "" {
		typ = "User"
		if strings.HasSuffix(login, "[bot]") {
			typ = "Bot"
		}
	}
	return &github.User{Login: github.String(login), Type: github.String(typ), ID: github.Int64(ghjson.ID(login))}
}

func sortByID[T any](items []T, id func(T) int64) {
	sort.SliceStable(items, func(i, j int) bool { return id(items[i]) < id(items[j]) })
}

func withQuery(p, q string) string {
	if q == "" {
		return p
	}
	return p + "?" + q
}

// Routes lists the fake's endpoints by their names ("GET /repos/{owner}/{repo}"),
// which Exchange.Route and Calls use too.
func Routes() []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = r.name
	}
	return out
}

// anonymousWrite reports whether GitHub accepts a write to p without
// credentials: the App's own JWT-authenticated routes (checked by their
// handlers), the manifest conversion (the one-time code is the credential)
// and the browser form of the manifest flow.
func anonymousWrite(p string) bool {
	return strings.HasPrefix(p, "/app/") || strings.HasPrefix(p, "/app-manifests/") ||
		strings.HasSuffix(p, "/settings/apps/new") || p == "/login/oauth/access_token"
}
