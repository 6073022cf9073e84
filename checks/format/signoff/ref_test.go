package signoff

import (
	"encoding/json"
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

func TestRefKeys(t *testing.T) {
	tests := []struct {
		key string
		ref Ref
		bad bool
	}{
		{key: "issuecomment-5", ref: Ref{checks.KindConversation, 5}},
		{key: "pullrequestreview-9", ref: Ref{checks.KindReview, 9}},
		{key: "discussion_r3", ref: Ref{checks.KindInline, 3}},
		{key: "issuecomment-0", bad: true},
		{key: "IssueComment-5", bad: true},
		{key: "issuecomment-5x", bad: true},
		{key: "issuecomment-99999999999999999999", bad: true},
		{key: "", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseKey(tt.key)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseKey(%q) = %+v, want an error", tt.key, got)
			}
			continue
		}
		if err != nil || got != tt.ref || got.Key() != tt.key {
			t.Errorf("ParseKey(%q) = %+v, %v; key %q", tt.key, got, err, got.Key())
		}
	}
	if (Ref{}).Key() != "" || !(Ref{}).IsZero() || (Ref{Kind: "other", ID: 1}).Key() != "" {
		t.Error("a Ref that names no sign-off has a key")
	}
}

// TestRefJSON: a Ref is stored as its key, and the zero Ref as nothing, so
// queued jobs keep the form they always had.
func TestRefJSON(t *testing.T) {
	type job struct {
		SignOff Ref `json:"signoff_key,omitzero"`
	}
	for _, tt := range []struct {
		in   job
		want string
	}{
		{job{Ref{checks.KindReview, 4}}, `{"signoff_key":"pullrequestreview-4"}`},
		{job{}, `{}`},
	} {
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.in, b, err, tt.want)
		}
		var back job
		if err := json.Unmarshal(b, &back); err != nil || back != tt.in {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	var j job
	if err := json.Unmarshal([]byte(`{"signoff_key":"nonsense"}`), &j); err == nil {
		t.Error("an invalid stored key was accepted")
	}
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		in   string
		want Link
		bad  bool
	}{
		{in: "https://github.com/o/r/pull/7#issuecomment-5", want: Link{"o", "r", 7, Ref{checks.KindConversation, 5}}},
		{in: "https://github.com/O/R/pull/7/files#discussion_r3", want: Link{"O", "R", 7, Ref{checks.KindInline, 3}}},
		{in: "https://ghes.example.com/o/r/pull/12#PullRequestReview-31", want: Link{"o", "r", 12, Ref{checks.KindReview, 31}}},
		{in: "https://acme.ghe.com/o/r/pull/1#issuecomment-2", want: Link{"o", "r", 1, Ref{checks.KindConversation, 2}}},
		{in: "http://github.com/o/r/pull/7#issuecomment-5", bad: true},
		{in: "https://github.com/o/r/issues/7#issuecomment-5", bad: true},
		{in: "https://github.com/o/r/pull/7#issuecomment-5x", bad: true},
		{in: "https://github.com/o/r/pull/0#issuecomment-5", bad: true},
		{in: "issuecomment-5", bad: true},
	}
	for _, tt := range tests {
		got, ok := ParseURL(tt.in)
		if ok == tt.bad || (ok && got != tt.want) {
			t.Errorf("ParseURL(%q) = %+v, %v", tt.in, got, ok)
		}
	}
	l, _ := ParseURL("https://github.com/SemiAnalysisAI/InferenceX/pull/12#issuecomment-1")
	if !l.Names("semianalysisai", "inferencex", 12) || l.Names("semianalysisai", "inferencex", 13) || l.Names("x", "inferencex", 12) {
		t.Error("Names")
	}
}
