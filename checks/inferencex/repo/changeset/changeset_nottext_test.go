package changeset_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// A changed file without a patch is not text when it holds a NUL byte (an
// image added or replaced, an image removed); a text file without a patch
// (a diff too large for GitHub) is still a problem.
func TestChangeSetNotText(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	r := inferencextest.NewRepo(repo.LegacyLayout())
	r.Base["docs/old.png"] = png
	r.Base["docs/chart.png"] = png
	r.Head["docs/chart.png"] = png + "\x00more"
	r.Head["docs/new.png"] = png
	r.Head["benchmarks/huge.sh"] = "echo one\n"
	r.Base["benchmarks/huge.sh"] = "echo zero\n"
	pr, src := r.PR(t)
	for i := range src.FilesValue {
		f := &src.FilesValue[i]
		if strings.HasSuffix(f.Path, ".png") || f.Path == "benchmarks/huge.sh" {
			f.Patch, f.PatchMissing = "", true
		}
	}
	cs, err := changeset.Fact.Of(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"docs/chart.png", "docs/new.png", "docs/old.png"}; !reflect.DeepEqual(cs.NotText, want) {
		t.Errorf("NotText = %v, want %v", cs.NotText, want)
	}
	var probs []string
	for _, p := range cs.Problems {
		probs = append(probs, p.Path+": "+p.Err)
	}
	joined := strings.Join(probs, "\n")
	if strings.Contains(joined, ".png") {
		t.Errorf("a binary file is an input problem:\n%s", joined)
	}
	if !strings.Contains(joined, "benchmarks/huge.sh: GitHub returned no patch") {
		t.Errorf("a text file without a patch is not a problem:\n%s", joined)
	}
}

// Master configs missing on the default branch (a layout that moved them
// later) are a problem of that commit, and say so.
func TestChangeSetProblemNamesItsRef(t *testing.T) {
	r := inferencextest.NewRepo(repo.LegacyLayout())
	r.Default = map[string]string{}
	for p, c := range r.Base {
		if !strings.HasPrefix(p, "configs/") {
			r.Default[p] = c
		}
	}
	r.Head["benchmarks/benchmark_lib.sh"] += "# tweak\n"
	pr, _ := r.PR(t)
	cs, err := changeset.Fact.Of(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, p := range cs.Problems {
		if p.Path == "configs" {
			refs = append(refs, p.Ref)
		}
	}
	if !reflect.DeepEqual(refs, []string{inferencextest.DefaultSHA}) {
		t.Errorf("configs problems at %v, want only at the default branch %s (problems %+v)", refs, inferencextest.DefaultSHA, cs.Problems)
	}
}
