package jobs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

func TestKeys(t *testing.T) {
	r := Repo{Owner: "SemiAnalysisAI", Name: "InferenceX"}
	if got := PRKey(r, 12); got != "semianalysisai/inferencex#12" {
		t.Errorf("PRKey = %q", got)
	}
	a := VerifyArgs{Repo: r, PR: 12, SignOff: signoff.Ref{Kind: checks.KindConversation, ID: 5}}
	b := VerifyArgs{Repo: Repo{Owner: "semianalysisai", Name: "inferencex"}, PR: 12, SignOff: signoff.Ref{Kind: checks.KindConversation, ID: 5}}
	if a.CoalesceKey() != b.CoalesceKey() {
		t.Error("coalesce key depends on case")
	}
	if (VerifyArgs{Repo: r, PR: 12}).CoalesceKey() != "semianalysisai/inferencex#12/newest" {
		t.Error("recheck key")
	}
}

func TestArgsRoundTrip(t *testing.T) {
	in := VerifyArgs{Repo: Repo{InstallationID: 9, Owner: "o", Name: "r"}, PR: 3, SignOff: signoff.Ref{Kind: checks.KindReview, ID: 4},
		ActorLogin: "a", ActorType: "User", DeliveryID: "d", Action: "edited", Manual: true, Generation: 2}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	// Jobs already in the queue carry the key as a string: the stored form
	// must not change.
	if !strings.Contains(string(b), `"signoff_key":"pullrequestreview-4"`) {
		t.Errorf("stored form changed: %s", b)
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
