package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestErrorClassification(t *testing.T) {
	cause := errors.New("502 Bad Gateway")
	tests := []struct {
		name      string
		err       error
		transient bool
		wait      time.Duration
	}{
		{"plain", cause, false, 0},
		{"nil", nil, false, 0},
		{"wrapped marker", fmt.Errorf("fetching PR: %w", ErrTransient), true, 0},
		{"Transient", Transient(cause), true, 0},
		{"Transient wrapped again", fmt.Errorf("verify: %w", Transient(cause)), true, 0},
		{"rate limit", &RateLimitError{RetryAfter: time.Minute, Err: cause}, true, time.Minute},
		{"rate limit without wait", &RateLimitError{Err: cause}, true, 0},
	}
	for _, tc := range tests {
		if got := IsTransient(tc.err); got != tc.transient {
			t.Errorf("%s: IsTransient = %v", tc.name, got)
		}
		wait, ok := RetryAfter(tc.err)
		if wait != tc.wait || ok != (tc.wait > 0) {
			t.Errorf("%s: RetryAfter = %v, %v", tc.name, wait, ok)
		}
		if tc.err != nil && tc.err != cause && tc.name != "wrapped marker" && !errors.Is(tc.err, cause) {
			t.Errorf("%s: cause lost", tc.name)
		}
	}
	if Transient(nil) != nil {
		t.Error("Transient(nil) != nil")
	}
}

func TestKeys(t *testing.T) {
	r := Repo{Owner: "SemiAnalysisAI", Name: "InferenceX"}
	if got := PRKey(r, 12); got != "semianalysisai/inferencex#12" {
		t.Errorf("PRKey = %q", got)
	}
	a := VerifyArgs{Repo: r, PR: 12, SignOffKey: "issuecomment-5"}
	b := VerifyArgs{Repo: Repo{Owner: "semianalysisai", Name: "inferencex"}, PR: 12, SignOffKey: "issuecomment-5"}
	if a.CoalesceKey() != b.CoalesceKey() {
		t.Error("coalesce key depends on case")
	}
	if (VerifyArgs{Repo: r, PR: 12}).CoalesceKey() != "semianalysisai/inferencex#12/newest" {
		t.Error("recheck key")
	}
}

func TestArgsRoundTrip(t *testing.T) {
	in := VerifyArgs{Repo: Repo{InstallationID: 9, Owner: "o", Name: "r"}, PR: 3, SignOffKey: "pullrequestreview-4",
		SignOffKind: SignOffReview, ActorLogin: "a", ActorType: "User", DeliveryID: "d", Action: "edited", Manual: true, Generation: 2}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out VerifyArgs
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Fatalf("round trip: %+v %v (%s)", out, err, b)
	}
	for _, k := range []Args{VerifyArgs{}, ReuseArgs{}, WelcomeArgs{}} {
		if k.Kind() == "" {
			t.Errorf("%T has no kind", k)
		}
	}
}
