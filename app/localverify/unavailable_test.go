package localverify_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/app/localverify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	infxrepo "github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// TestGitHubOnlyEvidenceNeverPasses rebuilds every PR fixture as a git
// repository and verifies it locally: no row that asked for evidence only
// GitHub has may pass, and each such row must say that it was not
// available (Check 0 may pass without GitHub's CODEOWNERS diagnostics and
// team membership, as it does on GitHub when they are refused).
func TestGitHubOnlyEvidenceNeverPasses(t *testing.T) {
	if !gitsource.Available() {
		t.Skip("git is not installed")
	}
	root := filepath.Join("..", "..", "testdata", "fixtures")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	phrase := infxrepo.Defaults().SignOffPhrase
	seen := map[int]map[string]bool{}
	passedAnyway := map[int][]string{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		name := d.Name()
		t.Run(name, func(t *testing.T) {
			fp := gitsourcetest.FromFixture(t, filepath.Join(root, name), phrase)
			repo, err := gitsource.Open(context.Background(), fp.Repo.Dir, gitsource.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			req := localverify.Request{Base: "main", Head: "pr", Number: fp.Pull.Number, Title: fp.Pull.Title, Body: fp.Pull.Body, Presets: []*checks.Preset{inferencex.Preset}}
			if fp.SignOff != "" {
				req.SignOff, req.Signer = &fp.SignOff, fp.Signer
			}
			ch, err := localverify.Prepare(context.Background(), repo, req)
			if err != nil {
				if strings.Contains(err.Error(), ".github/verdict.yml") {
					t.Skipf("the fixture's configuration is refused, as on GitHub: %v", err)
				}
				t.Fatal(err)
			}
			out, err := ch.Verify(context.Background(), true)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range out.PassedAnyway {
				passedAnyway[n] = append(passedAnyway[n], name)
			}
			for _, r := range out.Verdict.Rows {
				blocking := false
				for _, m := range out.Refused[r.Number] {
					if seen[r.Number] == nil {
						seen[r.Number] = map[string]bool{}
					}
					seen[r.Number][m] = true
					blocking = blocking || !(r.Number == 0 && (m == "CodeownersErrors" || m == "TeamMember"))
				}
				if !blocking || r.Result.Status == checks.NA {
					continue
				}
				if r.Result.Status == checks.Pass {
					t.Errorf("Check %d passes although %v were not available: %s", r.Number, out.Refused[r.Number], r.Result.Reason.EN)
				}
				if !strings.Contains(r.Result.Reason.EN, gitsource.Unavailable) || !strings.Contains(r.Result.Reason.ZH, gitsource.UnavailableZH) {
					t.Errorf("Check %d does not say what was not available: %q / %q", r.Number, r.Result.Reason.EN, r.Result.Reason.ZH)
				}
			}
		})
	}
	// The fixtures must reach the GitHub-only evidence of every row that
	// reads some, or the assertions above prove nothing about that row.
	for n, methods := range map[int][]string{0: {"CodeownersErrors"}, 1: {"CheckRuns"}, 3: {"UpstreamPR"}, 4: {"Comments"}, 12: {"CheckRuns"}, 14: {"Comments"}} {
		for _, m := range methods {
			if !seen[n][m] {
				t.Errorf("no fixture made Check %d ask for %s", n, m)
			}
		}
	}
	t.Logf("refused evidence per row: %v", seen)
	rows := make([]int, 0, len(passedAnyway))
	for n := range passedAnyway {
		rows = append(rows, n)
	}
	sort.Ints(rows)
	for _, n := range rows {
		t.Logf("Check %d passed without the GitHub-only evidence it asked for in %v", n, passedAnyway[n])
	}
}
