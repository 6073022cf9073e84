// Package githubtest is a fake GitHub REST API for tests. It serves a
// Fixture with the JSON shapes real GitHub uses, so the production client
// code (go-github, ghinstallation, the retrying transport, the GitHub-backed
// Source) runs unmodified against it. It records every write, counts calls
// per endpoint, can delay every request and inject faults, and keeps the
// state that writes change (comments, reactions, statuses, check runs).
package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
)

// Server is a running fake GitHub.
type Server struct {
	// URL is the server's root, without trailing slash. REST requests may be
	// sent to URL/ or to the GHES-style URL/api/v3/.
	URL string

	fx  *Fixture
	srv *httptest.Server

	mu        sync.Mutex
	clock     time.Time
	repos     map[string]*repoState // by lowercased full name
	comments  map[int64]*commentState
	reviewCs  map[int64]*reviewCommentRef
	nextID    map[string]int64
	writes    []Write
	calls     map[string]int
	pathCalls map[string]int
	total     int
	faults    []*Fault
	latency   time.Duration
	tokens    int
	pages     map[string]int

	zipMu sync.Mutex // guards zips; never taken while waiting for mu
	zips  map[int64][]byte
}

// Write is one recorded mutation request.
type Write struct {
	Method string
	// Path is the request path without the GHES /api/v3 prefix or query.
	Path   string
	Query  string
	Body   []byte
	Status int
}

// Fault makes matching requests fail.
type Fault struct {
	// Method matches the HTTP method; "" matches any.
	Method string
	// Path is a regular expression searched in the request path (without
	// the /api/v3 prefix), e.g. `/pulls/1/files$`. "" matches any.
	Path string
	// Auth filters by the Authorization header: "" any, "none" only
	// requests without one, otherwise a substring it must contain.
	Auth string
	// Status is the response status; Header and Body are sent with it.
	// The body defaults to a GitHub-style {"message": ...}.
	Status int
	Header map[string]string
	Body   string
	// Times is how many matching requests fail; 0 means every one.
	Times int
	// Delay stalls the matching request before answering (for timeouts).
	Delay time.Duration

	re   *regexp.Regexp
	used int
}

type repoState struct {
	r         *Repo
	pulls     map[int]*Pull
	issueCs   map[int][]*commentState // by issue number, in creation order
	checkRuns map[string][]*github.CheckRun
	statuses  map[string][]*github.RepoStatus
	runs      map[int64]*WorkflowRun
	artifacts map[int64]*Artifact
	artRun    map[int64]*WorkflowRun
}

type commentState struct {
	repo      *repoState
	issue     int
	c         Comment
	reactions []Reaction
	deleted   bool
}

type reviewCommentRef struct {
	repo *repoState
	pull *Pull
	c    *ReviewComment
}

// New starts a fake GitHub serving fx (nil for an empty fixture) and stops it
// when the test ends. Fixtures built in code are validated here; the test
// fails on an invalid one.
func New(t testing.TB, fx *Fixture) *Server {
	t.Helper()
	s, err := Start(fx)
	if err != nil {
		t.Fatalf("githubtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start is New without a testing.TB (benchmarks, commands). Call Close.
func Start(fx *Fixture) (*Server, error) {
	if fx == nil {
		fx = NewFixture("verdict")
	}
	if err := fx.normalize(); err != nil {
		return nil, fmt.Errorf("invalid fixture: %w", err)
	}
	s := &Server{
		fx:        fx,
		clock:     fx.Now,
		repos:     map[string]*repoState{},
		comments:  map[int64]*commentState{},
		reviewCs:  map[int64]*reviewCommentRef{},
		calls:     map[string]int{},
		pathCalls: map[string]int{},
		pages:     map[string]int{},
		zips:      map[int64][]byte{},
		nextID: map[string]int64{
			"comment": 1900000001, "reaction": 4900000001, "checkrun": 5900000001, "status": 8000000001,
		},
	}
	if err := s.buildState(); err != nil {
		return nil, fmt.Errorf("invalid fixture: %w", err)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Fixture returns the (normalized) fixture being served.
func (s *Server) Fixture() *Fixture { return s.fx }

// BaseURL is the REST base for clients, with trailing slash.
func (s *Server) BaseURL() string { return s.URL + "/" }

// Client returns an unauthenticated go-github client for this server.
func (s *Server) Client() *github.Client {
	c := github.NewClient(nil)
	u, _ := url.Parse(s.BaseURL())
	c.BaseURL, c.UploadURL = u, u
	return c
}

func (s *Server) buildState() error {
	for _, r := range s.fx.Repos {
		rs := &repoState{
			r: r, pulls: map[int]*Pull{}, issueCs: map[int][]*commentState{},
			checkRuns: map[string][]*github.CheckRun{}, statuses: map[string][]*github.RepoStatus{},
			runs: map[int64]*WorkflowRun{}, artifacts: map[int64]*Artifact{}, artRun: map[int64]*WorkflowRun{},
		}
		s.repos[strings.ToLower(r.FullName)] = rs
		for _, p := range r.Pulls {
			rs.pulls[p.Number] = p
			for _, c := range p.Comments {
				if _, dup := s.comments[c.ID]; dup {
					return fmt.Errorf("comment id %d used twice", c.ID)
				}
				cs := &commentState{repo: rs, issue: p.Number, c: *c}
				for _, rc := range c.Reactions {
					cs.reactions = append(cs.reactions, *rc)
				}
				s.comments[c.ID] = cs
				rs.issueCs[p.Number] = append(rs.issueCs[p.Number], cs)
			}
			for _, rc := range p.ReviewComments {
				if _, dup := s.reviewCs[rc.ID]; dup {
					return fmt.Errorf("review comment id %d used twice", rc.ID)
				}
				s.reviewCs[rc.ID] = &reviewCommentRef{repo: rs, pull: p, c: rc}
			}
		}
		for _, ref := range sortedKeys(r.CheckRuns) {
			sha := s.resolveSHA(rs, ref)
			for _, cr := range r.CheckRuns[ref] {
				rs.checkRuns[sha] = append(rs.checkRuns[sha], s.checkRunJSON(rs, sha, cr))
			}
		}
		for _, w := range r.WorkflowRuns {
			rs.runs[w.ID] = w
			for _, a := range w.Artifacts {
				if _, dup := rs.artifacts[a.ID]; dup {
					return fmt.Errorf("artifact id %d used twice", a.ID)
				}
				rs.artifacts[a.ID] = a
				rs.artRun[a.ID] = w
			}
		}
	}
	return nil
}

func (s *Server) resolveSHA(rs *repoState, ref string) string {
	if c := rs.r.commit(ref); c != nil {
		return c.SHA
	}
	return ref
}

// tick advances the clock for a mutation and returns the new time.
func (s *Server) tick() time.Time {
	s.clock = s.clock.Add(time.Second)
	return s.clock
}

func (s *Server) newID(kind string) int64 {
	id := s.nextID[kind]
	s.nextID[kind]++
	return id
}

// --- test helpers ---

// SetLatency delays every later request by d (honouring cancellation).
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// AddFault installs a fault; the first matching fault with uses left wins.
func (s *Server) AddFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ff := f
	if ff.Path != "" {
		ff.re = regexp.MustCompile(ff.Path)
	}
	s.faults = append(s.faults, &ff)
}

// ClearFaults removes all faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// RateLimitFault returns a fault that answers like GitHub's primary rate
// limit (403, X-RateLimit-Remaining: 0, reset after resetIn) for times requests.
func RateLimitFault(path string, times int, resetIn time.Duration) Fault {
	return Fault{Path: path, Times: times, Status: http.StatusForbidden,
		Header: map[string]string{
			"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
			"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(resetIn).Unix(), 10), "X-RateLimit-Resource": "core",
		},
		Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`}
}

// SecondaryLimitFault returns a fault that answers like GitHub's secondary
// rate limit (status 403 or 429 with Retry-After seconds) for times requests.
func SecondaryLimitFault(path string, times, status int, retryAfterSeconds int) Fault {
	return Fault{Path: path, Times: times, Status: status,
		Header: map[string]string{"Retry-After": strconv.Itoa(retryAfterSeconds)},
		Body:   `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
}

// Writes returns the recorded mutation requests in arrival order.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// Calls returns how many requests reached an endpoint, named by its
// template, e.g. "GET /repos/{owner}/{repo}/pulls/{number}/files".
// Faulted requests count.
func (s *Server) Calls(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[endpoint]
}

// PathCalls returns how many requests had this method and exact path
// (e.g. "GET", "/repos/o/r/pulls/1/files").
func (s *Server) PathCalls(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pathCalls[method+" "+path]
}

// CallCounts returns a copy of all per-endpoint counts.
func (s *Server) CallCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// TotalCalls is the number of requests served (pages excluded).
func (s *Server) TotalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// ResetCounts zeroes call counts and forgets recorded writes.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.pathCalls, s.pages, s.total, s.writes = map[string]int{}, map[string]int{}, map[string]int{}, 0, nil
}

// TokensIssued counts installation tokens minted.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens
}

// Now is the server clock (advanced one second per mutation).
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock
}

// Comments returns the live (not deleted) conversation comments of an
// issue or PR in creation order, reactions included.
func (s *Server) Comments(repo string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		return nil
	}
	var out []Comment
	for _, cs := range rs.issueCs[number] {
		if cs.deleted {
			continue
		}
		c := cs.c
		c.Reactions = nil
		for i := range cs.reactions {
			r := cs.reactions[i]
			c.Reactions = append(c.Reactions, &r)
		}
		out = append(out, c)
	}
	return out
}

// AddComment adds a conversation comment as if a user posted it and returns
// its ID. Zero times default to the server clock.
func (s *Server) AddComment(repo string, number int, c Comment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		panic("githubtest: AddComment: no repo " + repo)
	}
	now := s.tick()
	if c.ID == 0 {
		c.ID = s.newID("comment")
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = now
	}
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
	if c.Association == "" {
		c.Association = "NONE"
	}
	cs := &commentState{repo: rs, issue: number, c: c}
	s.comments[c.ID] = cs
	rs.issueCs[number] = append(rs.issueCs[number], cs)
	return c.ID
}

// EditComment changes a comment's body as its author would.
func (s *Server) EditComment(id int64, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comments[id]
	if cs == nil {
		panic(fmt.Sprintf("githubtest: EditComment: no comment %d", id))
	}
	cs.c.Body, cs.c.UpdatedAt = body, s.tick()
}

// Statuses returns the commit statuses on sha (name or SHA), newest first.
func (s *Server) Statuses(repo, sha string) []github.RepoStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		return nil
	}
	var out []github.RepoStatus
	list := rs.statuses[s.resolveSHA(rs, sha)]
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, *list[i])
	}
	return out
}

// CheckRuns returns the check runs on sha (name or SHA), fixture ones first.
func (s *Server) CheckRuns(repo, sha string) []github.CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.repos[strings.ToLower(repo)]
	if rs == nil {
		return nil
	}
	var out []github.CheckRun
	for _, cr := range rs.checkRuns[s.resolveSHA(rs, sha)] {
		out = append(out, *cr)
	}
	return out
}

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
	s.mu.Lock()
	s.calls[name]++
	s.pathCalls[r.Method+" "+p]++
	s.total++
	latency := s.latency
	fault := s.matchFault(r, p)
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
	s.rateHeaders(w)
	if rt == nil {
		if allowed {
			writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		if err != nil {
			writeError(w, http.StatusBadRequest, "unreadable body")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusRecorder{ResponseWriter: w}
		rt.h(s, rec, r, ps)
		s.mu.Lock()
		s.writes = append(s.writes, Write{Method: r.Method, Path: p, Query: r.URL.RawQuery, Body: body, Status: rec.status})
		s.mu.Unlock()
		return
	}
	rt.h(s, w, r, ps)
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

func (s *Server) matchFault(r *http.Request, p string) *Fault {
	auth := r.Header.Get("Authorization")
	for _, f := range s.faults {
		if f.Times > 0 && f.used >= f.Times {
			continue
		}
		if f.Method != "" && f.Method != r.Method {
			continue
		}
		if f.re != nil && !f.re.MatchString(p) {
			continue
		}
		switch {
		case f.Auth == "":
		case f.Auth == "none":
			if auth != "" {
				continue
			}
		case !strings.Contains(auth, f.Auth):
			continue
		}
		f.used++
		return f
	}
	return nil
}

func (s *Server) rateHeaders(w http.ResponseWriter) {
	s.mu.Lock()
	used := s.total
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(0, 5000-used)))
	h.Set("X-RateLimit-Used", strconv.Itoa(min(used, 5000)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-GitHub-Api-Version-Selected", "2022-11-28")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
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
		writeError(w, http.StatusNotFound, "Not Found")
	}
	return rs
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
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
	return &github.User{Login: github.String(login), Type: github.String(typ), ID: github.Int64(userID(login))}
}

func userID(login string) int64 {
	var h int64 = 7
	for _, c := range strings.ToLower(login) {
		h = (h*31 + int64(c)) % 100000000
	}
	return h + 1
}

func sortByID[T any](items []T, id func(T) int64) {
	sort.SliceStable(items, func(i, j int) bool { return id(items[i]) < id(items[j]) })
}
