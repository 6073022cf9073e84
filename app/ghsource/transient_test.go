package ghsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

func ghErr(status int, msg string) error {
	return &github.ErrorResponse{Response: &http.Response{StatusCode: status, Request: &http.Request{Method: "GET"}}, Message: msg}
}

func TestTransientClassification(t *testing.T) {
	tests := []struct {
		name   string
		status int
		err    error
		want   bool
	}{
		{"502", 502, ghErr(502, "Bad Gateway"), true},
		{"503 from storage", 503, errors.New("downloading: status 503"), true},
		{"429", 429, ghErr(429, "Too many requests"), true},
		{"secondary limit", 403, &github.AbuseRateLimitError{Message: "secondary rate limit"}, true},
		{"primary limit", 403, &github.RateLimitError{Message: "API rate limit exceeded"}, true},
		{"attempt timeout", 0, &ghclient.TimeoutError{Phase: "response headers", After: time.Second}, true},
		{"body cut short", 0, fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{"cancelled", 0, context.Canceled, true},
		{"storage rate limit", 403, errors.New("downloading: status 403"), false},
		{"404", 404, ghErr(404, "Not Found"), false},
		{"410", 410, ghErr(410, "Gone"), false},
		{"403 permission", 403, ghErr(403, "Resource not accessible by integration"), false},
		{"422", 422, ghErr(422, "Validation Failed"), false},
		{"malformed", 0, checks.ErrMalformed, false},
		{"nil", 0, nil, false},
	}
	for _, tc := range tests {
		var resp *http.Response
		if tc.status != 0 {
			resp = &http.Response{StatusCode: tc.status, Header: http.Header{}}
		}
		if got := retry.IsTransient(transient(resp, tc.err)); got != tc.want {
			t.Errorf("%s: transient = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTransientFailuresNeverLookAbsent: when GitHub keeps failing, every
// kind of read returns an error marked transient (never a "not found" or
// "forbidden" a check could render) and the Source remembers it.
func TestTransientFailuresNeverLookAbsent(t *testing.T) {
	faults := map[string]func(path string) githubtest.Fault{
		"502":       func(p string) githubtest.Fault { return githubtest.Fault{Path: p, Status: 502} },
		"hang":      func(p string) githubtest.Fault { return githubtest.Fault{Path: p, Delay: 5 * time.Second} },
		"secondary": func(p string) githubtest.Fault { return githubtest.SecondaryLimitFault(p, 0, 403, 0) },
		"429":       func(p string) githubtest.Fault { return githubtest.SecondaryLimitFault(p, 0, 429, 0) },
	}
	reads := []struct {
		name string
		path string
		read func(ctx context.Context, src *Source, fx *fixture.Fixture) error
	}{
		{"file", `/contents/`, func(ctx context.Context, src *Source, fx *fixture.Fixture) error {
			_, err := src.ReadFile(ctx, fx.SHA(ixFull, "main"), ".github/CODEOWNERS")
			return err
		}},
		{"files", `/pulls/3412/files$`, func(ctx context.Context, src *Source, _ *fixture.Fixture) error {
			_, err := src.Files(ctx)
			return err
		}},
		{"permission", `/permission$`, func(ctx context.Context, src *Source, _ *fixture.Fixture) error {
			_, err := src.Permission(ctx, "maintainer-a")
			return err
		}},
		{"team", `/memberships/`, func(ctx context.Context, src *Source, _ *fixture.Fixture) error {
			_, err := src.TeamMember(ctx, "SemiAnalysisAI", "core", "maintainer-a")
			return err
		}},
		{"upstream", `/sglang/pulls/21873$`, func(ctx context.Context, src *Source, _ *fixture.Fixture) error {
			_, err := src.UpstreamPR(ctx, "sgl-project", "sglang", 21873)
			return err
		}},
		{"download URL", `/artifacts/\d+/zip$`, readArtifact},
		{"archive", `/_blob/`, readArtifact},
	}
	for fname, fault := range faults {
		for _, rd := range reads {
			t.Run(fname+"/"+rd.name, func(t *testing.T) {
				s, fx := sample(t)
				src := newSource(t, s, Options{Retry: ghclient.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
					MaxRetries: 1, AttemptTimeout: 50 * time.Millisecond}})
				s.AddFault(fault(rd.path))
				err := rd.read(context.Background(), src, fx)
				if !retry.IsTransient(err) {
					t.Fatalf("err = %v; want a transient error", err)
				}
				for _, absent := range []error{checks.ErrNotFound, checks.ErrExpired, checks.ErrForbidden} {
					if errors.Is(err, absent) {
						t.Errorf("err = %v looks like %v", err, absent)
					}
				}
				if src.Transient() == nil {
					t.Error("the Source did not remember the transient failure")
				}
			})
		}
	}
}

func readArtifact(ctx context.Context, src *Source, _ *fixture.Fixture) error {
	arts, err := src.Artifacts(ctx, 30123456789)
	if err != nil || len(arts) == 0 {
		return fmt.Errorf("listing artifacts: %v", err)
	}
	_, err = src.ArtifactFiles(ctx, arts[0], nil)
	return err
}

// TestAbsenceIsNotTransient: what GitHub says is not there stays a
// sentinel a check may render, and leaves the Source clean.
func TestAbsenceIsNotTransient(t *testing.T) {
	s, fx := sample(t)
	src := newSource(t, s, Options{})
	ctx := context.Background()
	if _, err := src.ReadFile(ctx, fx.SHA(ixFull, "main"), "nope.txt"); !errors.Is(err, checks.ErrNotFound) || retry.IsTransient(err) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := src.Permission(ctx, "ghost"); !errors.Is(err, checks.ErrNotFound) || retry.IsTransient(err) {
		t.Errorf("unknown user: %v", err)
	}
	s.AddFault(githubtest.Fault{Path: `/permission$`, Status: 403, Body: `{"message":"Resource not accessible by integration"}`})
	if _, err := src.Permission(ctx, "maintainer-a"); !errors.Is(err, checks.ErrForbidden) || retry.IsTransient(err) {
		t.Errorf("refused: %v", err)
	}
	if err := src.Transient(); err != nil {
		t.Errorf("absence recorded as transient: %v", err)
	}
}

// TestArchiveStreamBrokenMidwayIsRestarted: an archive too large to buffer
// whose stream stalls halfway is downloaded again from a fresh URL.
func TestArchiveStreamBrokenMidwayIsRestarted(t *testing.T) {
	s, _ := sample(t)
	src := newSource(t, s, Options{Retry: ghclient.RetryOptions{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
		// Headers get all the time a loaded CI machine needs; only the
		// body's stall may trip the watchdog, so the retry must come from
		// a fresh URL rather than from the transport resending the blob.
		AttemptTimeout: 10 * time.Second, IdleTimeout: 300 * time.Millisecond, BufferLimit: -1}})
	s.AddFault(githubtest.Fault{Path: `/_blob/`, StallBody: 5 * time.Second, Times: 1})
	if err := readArtifact(context.Background(), src, nil); err != nil {
		t.Fatalf("after a stalled stream: %v", err)
	}
	if n := s.Calls("GET /repos/{owner}/{repo}/actions/artifacts/{id}/zip"); n != 2 {
		t.Errorf("download URL requested %d times, want 2 (a fresh URL per attempt)", n)
	}
	if err := src.Transient(); err != nil {
		t.Errorf("a recovered stall left a transient failure: %v", err)
	}
}
