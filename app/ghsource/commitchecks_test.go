package ghsource

import (
	"context"
	"reflect"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
	"github.com/verdict-bot/verdict/app/githubtest/fixture"
)

// CommitsWithChecks tells, a hundred commits a GraphQL query, which
// commits have check runs; a commit GitHub does not know counts as having
// some, so that its check runs are read.
func TestCommitsWithChecks(t *testing.T) {
	fx := fixture.New("verdict")
	r := fx.Repo(ixFull)
	var shas []string
	for i := range 150 {
		shas = append(shas, r.Commit(string(rune('a'+i%26))+string(rune('a'+i/26)), ""))
	}
	r.Branch("main", shas[0])
	r.AddCheckRuns(shas[3], &fixture.CheckRun{Name: "single-node / a", Status: "completed", Conclusion: "success"})
	r.AddCheckRuns(shas[120], &fixture.CheckRun{Name: "lint", Status: "completed", Conclusion: "failure"})
	s := githubtest.New(t, fx)
	src := newSource(t, s, Options{})
	unknown := "0123456789012345678901234567890123456789"
	got, err := src.CommitsWithChecks(context.Background(), append(shas, unknown))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{unknown: true}
	for i, sha := range shas {
		want[sha] = i == 3 || i == 120
	}
	if !reflect.DeepEqual(got, want) {
		for sha, v := range want {
			if g, ok := got[sha]; !ok || g != v {
				t.Errorf("%s: got %v (answered: %v), want %v", sha, g, ok, v)
			}
		}
	}
	if n := s.Calls("POST /graphql"); n != 2 {
		t.Errorf("%d GraphQL queries for 151 commits, want 2", n)
	}
}
