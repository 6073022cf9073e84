package checklist

import (
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
)

// Row 7 under each accept: sign-off trailers, signatures GitHub verified,
// either; a source that cannot tell signatures never passes on them.
func TestSignedCommits(t *testing.T) {
	const trailer = "\n\nSigned-off-by: A B <a@b.c>"
	offSigned := checks.Commit{SHA: base, Message: "a" + trailer, Verified: true}
	offOnly := checks.Commit{SHA: base, Message: "a" + trailer}
	signedOnly := checks.Commit{SHA: head, Message: "b", Verified: true}
	neither := checks.Commit{SHA: head, Message: "b\n\nSigned-off-by: nobody"}
	local := fmt.Errorf("commit signatures: %w", checks.ErrUnavailable)
	tests := []struct {
		name    string
		accept  string // "" is the default
		commits []checks.Commit
		sigErr  error
		status  checks.Status
		reason  string
	}{
		{"signoff: every commit signed off", "", []checks.Commit{offOnly, offSigned}, nil, checks.Pass, "all 2 commits are signed off"},
		{"signoff: a signature is not a sign-off", AcceptSignOff, []checks.Commit{offOnly, signedOnly}, nil, checks.Fail, "commit 1111111 has no Signed-off-by trailer"},
		{"signoff: signatures are not read", "", []checks.Commit{offOnly}, local, checks.Pass, "all 1 commits are signed off"},

		{"signature: every commit verified", AcceptSignature, []checks.Commit{offSigned, signedOnly}, nil, checks.Pass, "all 2 commits carry a signature GitHub verified"},
		{"signature: a sign-off is not a signature", AcceptSignature, []checks.Commit{offOnly, signedOnly}, nil, checks.Fail, "commit 2222222 has no signature GitHub verified"},
		{"signature: a source that cannot tell", AcceptSignature, []checks.Commit{offSigned, signedOnly}, local, checks.Fail,
			"could not be verified: checking the signatures of 2 commit(s): commit signatures: not available from this source"},

		{"either: one or the other per commit", AcceptEither, []checks.Commit{offOnly, signedOnly}, nil, checks.Pass, "all 2 commits are signed off or carry a signature GitHub verified"},
		{"either: neither", AcceptEither, []checks.Commit{offOnly, neither}, nil, checks.Fail, "commit 1111111 has neither a Signed-off-by trailer nor a signature GitHub verified"},
		{"either: sign-offs need no signature", AcceptEither, []checks.Commit{offOnly}, local, checks.Pass, "all 1 commits are signed off or"},
		{"either: a commit only a signature could pass", AcceptEither, []checks.Commit{offOnly, signedOnly}, local, checks.Fail, "could not be verified: checking the signatures of 1 commit(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := "  items:\n    - item: Docs updated\n      verify: dco\n"
			if tt.accept != "" {
				settings += "      accept: " + tt.accept + "\n"
			}
			pr, s := newPR(t, settings)
			s.CommitsValue = checks.CommitList{Commits: tt.commits, SignaturesErr: tt.sigErr}
			r := checkstest.RunOne(t, pr, SignedOff)
			if r.Status != tt.status || !strings.Contains(r.Reason.EN, tt.reason) {
				t.Fatalf("%s %q, want %s containing %q", r.Status, r.Reason.EN, tt.status, tt.reason)
			}
			if words := checkstest.EnglishInChinese(r.Reason.ZH); len(words) > 0 {
				t.Errorf("untranslated %q in %q", words, r.Reason.ZH)
			}
		})
	}
}

// Commits that cannot be listed, or past GitHub's cap, leave every accept
// unverified.
func TestSignedCommitsUnreadable(t *testing.T) {
	for _, accept := range accepts {
		for name, setup := range map[string]func(s *checkstest.Source){
			"unlisted":  func(s *checkstest.Source) { s.CommitsError = fmt.Errorf("listing commits: %w", checks.ErrForbidden) },
			"truncated": func(s *checkstest.Source) { s.CommitsValue = checks.CommitList{Truncated: true} },
		} {
			t.Run(accept+"/"+name, func(t *testing.T) {
				pr, s := newPR(t, "  items:\n    - item: Docs updated\n      verify: dco\n      accept: "+accept+"\n")
				setup(s)
				if r := checkstest.RunOne(t, pr, SignedOff); r.Status != checks.Fail || !strings.Contains(r.Reason.EN, "could not be verified") {
					t.Fatalf("%s %q, want unverified", r.Status, r.Reason.EN)
				}
			})
		}
	}
}
