package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/perfchangelog"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/inferencextest"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
)

// RULES.md, Check 14: an append-only sweep measures only the new
// points, so fewer than 5 of them is "unverifiable (append-only; prior
// points not retrieved)", not a short curve. Still WARN: the prior curve is
// not fetched from a trusted source. Mixed or regular entries keep the plain
// count.
func TestParetoAppendOnlyRunIsUnverifiable(t *testing.T) {
	art, data := ciAgenticArt(11, "bmk_agentic_qwen", ciCurve(2, "qwen3.5", "mi355x-amds", "sglang", "fp8", "mtp", "img:a", false, ciXs, ciYs)...)
	ao := perfchangelog.Entry{ConfigKeys: []string{"qwen3.5-fp8-mi355x-sglang-agentic-mtp"}, AppendOnly: true}
	regular := perfchangelog.Entry{ConfigKeys: []string{"qwen3.5-fp8-mi355x-sglang-mtp"}}
	const short = "qwen3.5/agentic-coding/mi355x_sglang/fp8/30123456789/p90: 2/5 frontier points"
	for _, c := range []struct {
		name    string
		entries []perfchangelog.Entry
		append  bool
	}{
		{"append-only", []perfchangelog.Entry{ao}, true},
		{"mixed", []perfchangelog.Entry{ao, regular}, false},
		{"regular", []perfchangelog.Entry{regular}, false},
		{"no entries", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &checkstest.Source{CommitsValue: ciCommits(ciHead)}
			src.Runs = map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")}
			src.RunArtifacts = map[int64][]checks.Artifact{ciRun: {art}}
			src.ArtifactData = map[int64]map[string]string{11: data}
			pr := ciPR(src)
			cs := &changeset.Model{
				Files:          []checks.ChangedFile{{Path: "configs/amd-master.yaml", Status: "modified"}},
				Affected:       []*repo.ConfigEntry{ciQwenCfg()},
				ChangelogAdded: c.entries,
			}
			inferencextest.WithChangeSet(cs)(pr)
			res := checkstest.Run(t, pr, inferencex.PassingSweep, inferencex.ParetoCoverage)[14]
			if res.Status != checks.Warn || !strings.Contains(res.Reason.EN, short) {
				t.Fatalf("got %s %q, want WARN with %q", res.Status, res.Reason.EN, short)
			}
			got := strings.Contains(res.Reason.EN, short+" in this run alone; unverifiable (append-only; prior points not retrieved)")
			if got != c.append {
				t.Errorf("append-only wording = %v, want %v: %q", got, c.append, res.Reason.EN)
			}
			if c.append && !strings.Contains(res.Reason.ZH, "仅追加") {
				t.Errorf("Chinese reason lacks the append-only note: %q", res.Reason.ZH)
			}
		})
	}
}
