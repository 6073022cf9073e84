package retry

import (
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
		wait, ok := After(tc.err)
		if wait != tc.wait || ok != (tc.wait > 0) {
			t.Errorf("%s: After = %v, %v", tc.name, wait, ok)
		}
		if tc.err != nil && tc.err != cause && tc.name != "wrapped marker" && !errors.Is(tc.err, cause) {
			t.Errorf("%s: cause lost", tc.name)
		}
	}
	if Transient(nil) != nil {
		t.Error("Transient(nil) != nil")
	}
}
