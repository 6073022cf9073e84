package signoff

import (
	"testing"
	"time"
)

func TestStampDescribes(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		stamp   Stamp
		body    string
		updated time.Time
		want    bool
	}{
		{"the body delivered", StampOf("a", t0), "a", t0, true},
		{"another body", StampOf("a", t0), "b", t0, false},
		{"the same text written again later", StampOf("a", t0), "a", t0.Add(time.Second), false},
		{"a review: no times", StampOf("a", time.Time{}), "a", time.Time{}, true},
		{"no stamp", Stamp{}, "", time.Time{}, false},
	} {
		if got := tt.stamp.Describes(tt.body, tt.updated); got != tt.want {
			t.Errorf("%s: Describes = %v, want %v", tt.name, got, tt.want)
		}
	}
}
