package githubtest

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

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
// limit (403, X-RateLimit-Remaining: 0, reset after resetIn by the wall
// clock) for times requests. GitHub may answer a primary limit with 429
// too: set Status.
func RateLimitFault(path string, times int, resetIn time.Duration) Fault {
	return Fault{Path: path, Times: times, Status: http.StatusForbidden,
		Header: map[string]string{
			"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
			"X-RateLimit-Reset": strconv.FormatInt(time.Now().Add(resetIn).Unix(), 10), "X-RateLimit-Resource": "core",
		},
		Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`}
}

// SecondaryLimitFault returns a fault that answers like GitHub's secondary
// rate limit (status 403 or 429, with Retry-After seconds, or without the
// header when retryAfterSeconds is negative) for times requests.
func SecondaryLimitFault(path string, times, status int, retryAfterSeconds int) Fault {
	f := Fault{Path: path, Times: times, Status: status, Header: map[string]string{},
		Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
	if retryAfterSeconds >= 0 {
		f.Header["Retry-After"] = strconv.Itoa(retryAfterSeconds)
	}
	return f
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
func (s *Server) CallCounts() map[string]int { return s.copyCounts(s.calls) }

// URICallCounts returns a copy of the per-request counts, keyed
// "METHOD /exact/path?query": what a test reads to prove nothing is
// fetched twice.
func (s *Server) URICallCounts() map[string]int { return s.copyCounts(s.uriCalls) }

func (s *Server) copyCounts(m map[string]int) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(m))
	for k, v := range m {
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

// NotModifiedCalls is the number of conditional requests answered 304
// (included in TotalCalls; GitHub does not count them against the rate
// limit).
func (s *Server) NotModifiedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notModified
}

// ResetCounts zeroes call counts and forgets recorded writes.
func (s *Server) ResetCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.pathCalls, s.uriCalls, s.pages, s.total, s.notModified, s.writes = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, 0, 0, nil
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
	author := ""
	if cs := s.comments[id]; cs != nil {
		author = cs.c.User
	}
	s.mu.Unlock()
	s.EditCommentAs(id, body, author)
}

// EditCommentAs changes a comment's body as editor would (anyone with
// write access can edit others' comments), without sending a webhook.
func (s *Server) EditCommentAs(id int64, body, editor string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.comments[id]
	if cs == nil {
		panic(fmt.Sprintf("githubtest: EditComment: no comment %d", id))
	}
	cs.c.Body, cs.c.UpdatedAt = body, s.tick()
	cs.c.Edits = append(cs.c.Edits, Edit{Editor: editor, At: cs.c.UpdatedAt})
}

// EditReview changes a review's summary as editor would.
func (s *Server) EditReview(id int64, body, editor string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.findReview(id)
	if rv == nil {
		panic(fmt.Sprintf("githubtest: EditReview: no review %d", id))
	}
	rv.Body = body
	rv.Edits = append(rv.Edits, Edit{Editor: editor, At: s.tick()})
}

// DismissReview dismisses a review, as a maintainer would.
func (s *Server) DismissReview(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rv := s.findReview(id)
	if rv == nil {
		panic(fmt.Sprintf("githubtest: DismissReview: no review %d", id))
	}
	rv.State = "DISMISSED"
	s.tick()
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
