// Package githubtest is a fake GitHub REST API for tests. It serves a
// fixture (package fixture) with the JSON shapes real GitHub uses (package
// ghjson), so the production client code (go-github, ghinstallation, the
// retrying transport, the GitHub-backed Source) runs unmodified against it.
// It records every write, counts calls per endpoint, can delay every
// request and inject faults, and keeps the state that writes change
// (comments, reactions, statuses, check runs). The App's webhook (package
// hookshot) and the github.com pages of the OAuth and manifest flows
// (package webflow) are parts of it that keep their own state.
package githubtest

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/githubtest/ghjson"
	"github.com/verdict-bot/verdict/app/githubtest/hookshot"
	"github.com/verdict-bot/verdict/app/githubtest/webflow"
)

// Server is a running fake GitHub.
type Server struct {
	// URL is the server's root, without trailing slash. REST requests may be
	// sent to URL/ or to the GHES-style URL/api/v3/.
	URL string

	fx   *fixture.Fixture
	srv  *httptest.Server
	site ghjson.Site // the JSON objects of this server

	mu        sync.Mutex
	clock     time.Time
	repos     map[string]*repoState // by lowercased full name
	comments  map[int64]*commentState
	reviewCs  map[int64]*reviewCommentRef
	nextID    map[string]int64
	writes    []Write
	calls     map[string]int
	pathCalls map[string]int
	uriCalls  map[string]int // path and query
	total     int
	// inFlight and peakInFlight count the requests being answered.
	inFlight, peakInFlight int
	// notModified counts the 304s among total.
	notModified int
	// spent are calls other clients of the installation made: they count
	// against the rate limit the headers report (SpendRate).
	spent     int
	faults    []*Fault
	mix       *FaultMix
	injected  map[string]int
	hook      func(Served)
	latency   time.Duration
	tracing   bool
	trace     []Traced
	tokens    int
	pages     map[string]int
	hooks     *hookshot.Hook
	oauth     *webflow.OAuth
	manifests *webflow.Manifests

	// gitTrees are the git tree objects of every fixture tree, by SHA;
	// rootTrees maps a fixture tree's name to its root tree's SHA.
	gitTrees  map[string]*gitTree
	rootTrees map[string]string

	zipMu sync.Mutex // guards zips; never taken while waiting for mu
	zips  map[int64][]byte
}

type repoState struct {
	r         *fixture.Repo
	pulls     map[int]*fixture.Pull
	issues    map[int]*fixture.Issue  // issues that are not pull requests
	issueCs   map[int][]*commentState // by issue number, in creation order
	checkRuns map[string][]*github.CheckRun
	statuses  map[string][]*github.RepoStatus
	runs      map[int64]*fixture.WorkflowRun
	artifacts map[int64]*fixture.Artifact
	artRun    map[int64]*fixture.WorkflowRun
}

type commentState struct {
	repo      *repoState
	issue     int
	c         fixture.Comment
	reactions []fixture.Reaction
	deleted   bool
	// minimized is the classifier it was hidden with ("": shown).
	minimized string
}

type reviewCommentRef struct {
	repo *repoState
	pull *fixture.Pull
	c    *fixture.ReviewComment
}

// TB is the part of testing.TB that New uses. It is declared here so that
// the fake, which `verdict check --fixture` runs too, does not link the
// testing package into the binary.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// New starts a fake GitHub serving fx (nil for an empty fixture) and stops it
// when the test ends. Fixtures built in code are validated here; the test
// fails on an invalid one.
func New(t TB, fx *fixture.Fixture) *Server {
	t.Helper()
	s, err := Start(fx)
	if err != nil {
		t.Fatalf("githubtest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start is New without a test (benchmarks, commands). Call Close.
func Start(fx *fixture.Fixture) (*Server, error) {
	if fx == nil {
		fx = fixture.New("verdict")
	}
	if err := fx.Normalize(); err != nil {
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
		uriCalls:  map[string]int{},
		pages:     map[string]int{},
		injected:  map[string]int{},
		zips:      map[int64][]byte{},
		hooks:     hookshot.New(fx.App.ID),
		oauth:     webflow.NewOAuth(),
		manifests: webflow.NewManifests(),
		gitTrees:  map[string]*gitTree{},
		rootTrees: map[string]string{},
		nextID: map[string]int64{
			"comment": 1900000001, "reaction": 4900000001, "checkrun": 5900000001, "status": 8000000001,
		},
	}
	if err := s.buildState(); err != nil {
		return nil, fmt.Errorf("invalid fixture: %w", err)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	s.site = ghjson.NewSite(s.URL, fx)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Fixture returns the (normalized) fixture being served.
func (s *Server) Fixture() *fixture.Fixture { return s.fx }

// BaseURL is the REST base for clients, with trailing slash.
func (s *Server) BaseURL() string { return s.URL + "/" }

// Client returns a go-github client for this server that authenticates as
// the App's installation (see InstallationToken).
func (s *Server) Client() *github.Client {
	c := github.NewClient(nil).WithAuthToken(s.InstallationToken())
	u, _ := url.Parse(s.BaseURL())
	c.BaseURL, c.UploadURL = u, u
	return c
}

func (s *Server) buildState() error {
	for name, t := range s.fx.Trees {
		s.rootTrees[name] = addGitTrees(t.Resolved(), s.gitTrees)
	}
	// A commit without a tree has the empty tree.
	s.rootTrees[""] = addGitTrees(nil, s.gitTrees)
	for _, r := range s.fx.Repos {
		rs := &repoState{
			r: r, pulls: map[int]*fixture.Pull{}, issues: map[int]*fixture.Issue{}, issueCs: map[int][]*commentState{},
			checkRuns: map[string][]*github.CheckRun{}, statuses: map[string][]*github.RepoStatus{},
			runs: map[int64]*fixture.WorkflowRun{}, artifacts: map[int64]*fixture.Artifact{}, artRun: map[int64]*fixture.WorkflowRun{},
		}
		s.repos[strings.ToLower(r.FullName)] = rs
		for _, is := range r.Issues {
			rs.issues[is.Number] = is
		}
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
		for _, ref := range slices.Sorted(maps.Keys(r.CheckRuns)) {
			sha := rs.r.ResolveSHA(ref)
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
