package reuse

import (
	"context"
	"reflect"
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

// testAssociations is the test preset's setting of who may give reuse
// commands, handed from its Configure to its rules through the PR.
var testAssociations = checks.NewParam[[]string]("test reuse associations")

// TestPresetDecidesReuse: the acknowledger answers a reuse command only
// where the preset has reuse rules, and then asks them, not InferenceX's
// settings and eligibility, who may give one and whether the run may be
// reused. The test preset allows only CONTRIBUTOR (InferenceX refuses it)
// and accepts or refuses run 4242 (not in the fake's Actions catalogue) on
// a PR labelled evals-only (a label InferenceX refuses to reuse with).
func TestPresetDecidesReuse(t *testing.T) {
	accept := checks.ReuseDecision{Eligible: true, Run: checks.WorkflowRun{ID: 4242, Conclusion: "success"},
		Reason: checks.T("run 4242 may be reused", "运行 4242 可以复用")}
	refuse := checks.ReuseDecision{Run: checks.WorkflowRun{ID: 4242},
		Reason: checks.T("the test preset refuses run 4242", "测试预设拒绝运行 4242")}
	tests := []struct {
		name     string
		noRules  bool
		problems []checks.ConfigProblem
		decision checks.ReuseDecision
		assoc    string
		reaction string // "" = none
		reply    string // substring of the one reply; "" = no reply
		log      string
		// consulted: the preset's Eligible is asked.
		consulted bool
	}{
		{name: "preset without reuse rules", noRules: true, assoc: "MEMBER",
			log: "takes no reuse commands"},
		{name: "eligible by the preset", decision: accept, assoc: "CONTRIBUTOR", reaction: "+1",
			log: "Reuse accepted / 复用请求已接受: PR #12, run 4242 (success).", consulted: true},
		{name: "refused by the preset", decision: refuse, assoc: "CONTRIBUTOR", reaction: "-1",
			reply: "Reuse rejected: the test preset refuses run 4242", consulted: true},
		{name: "association the preset does not allow", decision: accept, assoc: "MEMBER", reaction: "-1",
			reply: "it requires one of these author associations: CONTRIBUTOR."},
		{name: "settings the preset refuses", decision: accept, assoc: "CONTRIBUTOR", reaction: "-1",
			problems: []checks.ConfigProblem{{Key: "preset_settings", Message: checks.T("preset_settings: refused", "preset_settings：拒绝")}},
			reply:    "could not be verified: .github/verdict.yml on main is invalid (preset_settings: refused)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, withLabels("evals-only"))
			var asked []checks.ReuseRequest
			var on *checks.PR
			p := &checks.Preset{
				Name:     "test",
				Commands: []string{"use", "reuse-sweep-run"},
				Configure: func(pr *checks.PR, _ []byte) []checks.ConfigProblem {
					if len(tt.problems) > 0 {
						return tt.problems
					}
					testAssociations.Set(pr, []string{"CONTRIBUTOR"})
					return nil
				},
			}
			if !tt.noRules {
				p.Reuse = &checks.ReuseRules{
					Associations: testAssociations.Get,
					Eligible: func(_ context.Context, pr *checks.PR, req checks.ReuseRequest) checks.ReuseDecision {
						asked, on = append(asked, req), pr
						return tt.decision
					},
				}
			}
			e.ack.Presets = []*checks.Preset{p}

			id := e.post("someone", tt.assoc, "/use 4242")
			e.acknowledge(id, "created")
			e.expect(id, tt.reaction, tt.reply)
			e.logged(tt.log)

			if !tt.consulted {
				if len(asked) != 0 {
					t.Errorf("the preset was asked about %+v", asked)
				}
				return
			}
			want := []checks.ReuseRequest{{Name: "/use", Pinned: true, RunIDText: "4242", RunID: 4242}}
			if !reflect.DeepEqual(asked, want) {
				t.Fatalf("the preset was asked about %+v, want %+v", asked, want)
			}
			// The fields a command's PR carries (ReuseRules.Eligible).
			type fields struct {
				Owner, Repo, HeadRef, DefaultBranch string
				Number                              int
				Labels                              []string
			}
			got := fields{on.Owner, on.Repo, on.HeadRef, on.DefaultBranch, on.Number, on.Labels}
			wantPR := fields{"acme", "bench", "feat", "main", prNum, []string{"evals-only"}}
			if !reflect.DeepEqual(got, wantPR) || on.DefaultSHA == "" || on.Source == nil {
				t.Errorf("the preset was asked about %+v (default commit %q, source %v), want %+v with the default branch's commit and a source",
					got, on.DefaultSHA, on.Source, wantPR)
			}
			if a := testAssociations.Get(on); !reflect.DeepEqual(a, []string{"CONTRIBUTOR"}) {
				t.Errorf("the preset's settings on the PR it was asked about = %v, want those its Configure read", a)
			}
		})
	}
}
