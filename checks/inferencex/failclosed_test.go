package inferencex_test

import (
	"errors"
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

// The fail-closed audit (RULES.md, "Fail-closed policy"): for every row, a
// setting that passes, then the same setting with one input the row needs
// made unreadable. The row must not pass, and must name what it could not
// read. The passing baseline is what makes each case able to fail: the
// injected input, nothing else, turns the row.

// errUnreadable is what the injected reads answer: not "not found", which
// some rows may legitimately read as "absent".
var errUnreadable = errors.New("HTTP 500 from the contents API")

// fcCase is one row's audit: run builds the row's setting and, when broken,
// makes one input it needs unreadable; want names that input in the reason.
type fcCase struct {
	name  string
	check *checks.Check
	run   func(t *testing.T, broken bool) checks.Result
	want  []string
}

// fcRepo runs c on the shared fixture repository in layout l after edit;
// breaking applies inject to the source first.
func fcRepo(t *testing.T, l repo.Layout, c *checks.Check, edit func(r *inferencextest.Repo), inject func(r *inferencextest.Repo, src *checkstest.Source), broken bool) checks.Result {
	t.Helper()
	r := inferencextest.NewRepo(l)
	edit(r)
	if broken && inject != nil {
		// Content-level breakage (a file that does not parse) goes through
		// the fixture's trees; source-level breakage through the source.
		inject(r, nil)
	}
	pr, src := r.PR(t)
	if broken && inject != nil {
		inject(r, src)
	}
	return checkstest.RunOne(t, pr, c)
}

// fcPathError makes every read of the fixture path p fail.
func fcPathError(p string) func(r *inferencextest.Repo, src *checkstest.Source) {
	return func(r *inferencextest.Repo, src *checkstest.Source) {
		if src == nil {
			return
		}
		if src.PathErrors == nil {
			src.PathErrors = map[string]error{}
		}
		src.PathErrors[r.Path(p)] = errUnreadable
	}
}

// fcUnparseable replaces the fixture file p, at the base and at H alike (so
// the PR does not change it), with text the shell reader refuses.
func fcUnparseable(p string) func(r *inferencextest.Repo, src *checkstest.Source) {
	return func(r *inferencextest.Repo, src *checkstest.Source) {
		if src != nil {
			return
		}
		bad := r.Base[p] + "echo \"unterminated\n"
		r.Base[p], r.Head[p] = bad, bad
	}
}

// fcBumpMTP bumps the image of the fixture's spec-decode SGLang config,
// whose script sources benchmarks/benchmark_lib.sh.
func fcBumpMTP(r *inferencextest.Repo) {
	r.Head["configs/nvidia-master.yaml"] = strings.Replace(r.Head["configs/nvidia-master.yaml"],
		"lmsysorg/sglang:v0.5.12-cu130", "lmsysorg/sglang:v0.5.13-cu130", 1)
	r.Detail = draftEvidence
}

const (
	fcLib    = "benchmarks/benchmark_lib.sh"
	fcScript = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_mtp.sh"
)

func fcCases() []fcCase {
	var cs []fcCase
	for name, l := range inferencextest.Layouts() {
		repoCase := func(row, what string, c *checks.Check, edit func(*inferencextest.Repo), inject func(*inferencextest.Repo, *checkstest.Source), want ...string) {
			for i, w := range want {
				want[i] = strings.ReplaceAll(w, "{root}", l.Root)
			}
			cs = append(cs, fcCase{name: row + " " + what + "/" + name, check: c, want: want,
				run: func(t *testing.T, broken bool) checks.Result { return fcRepo(t, l, c, edit, inject, broken) }})
		}
		repoCase("Check 6", "master config unreadable", inferencex.UpstreamImages,
			func(r *inferencextest.Repo) {
				r.AppendEntry("configs/amd-master.yaml", cfgSprintf(cfgVLLMEntry, "mi355x", "vllm/vllm-openai-rocm:v0.11.0", "mi355x"))
			},
			fcPathError("configs/amd-master.yaml"), "{root}configs/amd-master.yaml", errUnreadable.Error())
		repoCase("Check 7", "MODELS.md unreadable", inferencex.DeprecatedModels,
			func(r *inferencextest.Repo) {
				r.Head["configs/amd-master.yaml"] = strings.Replace(r.Head["configs/amd-master.yaml"],
					"lmsysorg/sglang:v0.5.12-rocm700-mi35x", "lmsysorg/sglang:v0.5.13-rocm700-mi35x", 1)
			},
			fcPathError("MODELS.md"), l.Models, errUnreadable.Error())
		repoCase("Check 8", "master config unreadable", inferencex.ArchitectureHacks, fcBumpMTP,
			fcPathError("configs/nvidia-master.yaml"), "{root}configs/nvidia-master.yaml", errUnreadable.Error())
		repoCase("Check 8", "helper unreadable", inferencex.ArchitectureHacks, fcBumpMTP,
			fcPathError(fcLib), "{root}"+fcLib, errUnreadable.Error())
		repoCase("Check 8", "helper unparseable", inferencex.ArchitectureHacks, fcBumpMTP,
			fcUnparseable(fcLib), "{root}"+fcLib, "could not be read")
		repoCase("Check 9", "script unreadable", inferencex.ChatTemplate, fcBumpMTP,
			fcPathError(fcScript), "{root}"+fcScript)
		repoCase("Check 9", "script unparseable", inferencex.ChatTemplate, fcBumpMTP,
			fcUnparseable(fcScript), "{root}"+fcScript, "could not be read")
		repoCase("Check 10", "master config unreadable", inferencex.EnginePatches, fcBumpMTP,
			fcPathError("configs/nvidia-master.yaml"), "{root}configs/nvidia-master.yaml", errUnreadable.Error())
		repoCase("Check 10", "unchanged helper unparseable", inferencex.EnginePatches, fcBumpMTP,
			fcUnparseable(fcLib), "{root}"+fcLib, "could not be read")
		repoCase("Check 10", "unchanged helper unreadable", inferencex.EnginePatches, fcBumpMTP,
			fcPathError(fcLib), "{root}"+fcLib, errUnreadable.Error())
		repoCase("Check 10", "unchanged script unparseable", inferencex.EnginePatches, fcBumpMTP,
			fcUnparseable(fcScript), "{root}"+fcScript, "could not be read")
		repoCase("Check 13", "helper unreadable", inferencex.DraftPrecision, fcBumpMTP,
			fcPathError(fcLib), "{root}"+fcLib, errUnreadable.Error())
		repoCase("Check 13", "helper unparseable", inferencex.DraftPrecision, fcBumpMTP,
			fcUnparseable(fcLib), "{root}"+fcLib, "could not be read")

		const recipe = "benchmarks/single_node/srt-slurm-recipes/qwen3.5/sglang/b200-fp8-mtp/agentic.yaml"
		goldenRun := func(inject func(r *inferencextest.Repo, src *checkstest.Source), want ...string) {
			cs = append(cs, fcCase{name: "Check 11 " + want[0] + "/" + name, check: inferencex.GoldenAcceptance, want: want,
				run: func(t *testing.T, broken bool) checks.Result {
					r := inferencextest.NewRepo(l)
					r.AppendEntry("configs/nvidia-master.yaml", specQwenAgentic)
					r.Head[recipe] = strings.Replace(specQwenRecipe, "%s", `      SGLANG_SIMULATE_ACC_LEN: "3.39"`, 1)
					pr, src := r.PR(t)
					src.SetFile(inferencextest.DefaultSHA, r.Layout.GoldenDir+"/qwen3.5_mtp.yaml", qwenGolden)
					if broken {
						inject(r, src)
					}
					return checkstest.RunOne(t, pr, inferencex.GoldenAcceptance)
				}})
		}
		goldenRun(func(r *inferencextest.Repo, src *checkstest.Source) {
			src.PathErrors = map[string]error{r.Layout.GoldenDir + "/qwen3.5_mtp.yaml": errUnreadable}
		}, "qwen3.5_mtp.yaml", errUnreadable.Error())
		goldenRun(func(r *inferencextest.Repo, src *checkstest.Source) {
			src.PathErrors = map[string]error{r.Path(recipe): errUnreadable}
		}, recipe)
		cs = append(cs, fcCase{name: "Check 15 master config unreadable/" + name, check: inferencex.Description,
			want: []string{l.Root + "configs/amd-master.yaml"},
			run: func(t *testing.T, broken bool) checks.Result {
				r := inferencextest.NewRepo(l)
				r.Head["configs/amd-master.yaml"] = strings.Replace(r.Head["configs/amd-master.yaml"],
					"image: lmsysorg/sglang:v0.5.12-rocm700-mi35x", "image: lmsysorg/sglang:v0.5.13-rocm700-mi35x", 1)
				pr, src := r.PR(t)
				pr.Body = "Bumps dsr1-fp4-mi355x-sglang to lmsysorg/sglang:v0.5.13-rocm700-mi35x.\n"
				if broken {
					fcPathError("configs/amd-master.yaml")(r, src)
				}
				return checkstest.RunOne(t, pr, inferencex.Description)
			}})
	}

	cs = append(cs,
		fcCase{name: "Check 0 CODEOWNERS unreadable", check: inferencex.Codeowner, want: []string{".github/CODEOWNERS", errUnreadable.Error()},
			run: func(t *testing.T, broken bool) checks.Result {
				src := &checkstest.Source{FilesValue: changed(amdMaster)}
				src.SetFile(ownersBase, ".github/CODEOWNERS", ownersFixture)
				if broken {
					src.PathErrors = map[string]error{".github/CODEOWNERS": errUnreadable}
				}
				pr := checkstest.NewPR(src, inferencextest.Preset(repo.E2ELayout()),
					checkstest.Identity("SemiAnalysisAI", "InferenceX", 2611),
					func(pr *checks.PR) {
						pr.HeadSHA, pr.BaseTip = "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", ownersBase
						pr.SignOff = checks.SignOff{Author: "amd-owner-a"}
					})
				return checkstest.RunOne(t, pr, inferencex.Codeowner)
			}},
		fcCase{name: "Check 0 team membership unreadable", check: inferencex.Codeowner, want: []string{"@SemiAnalysisAI/core"},
			run: func(t *testing.T, broken bool) checks.Result {
				src := &checkstest.Source{FilesValue: changed("README.md"),
					Teams: map[string]checks.Membership{"semianalysisai/core/maintainer-a": checks.Member}}
				src.SetFile(ownersBase, ".github/CODEOWNERS", ownersFixture)
				if broken {
					src.TeamMemberError = errUnreadable
				}
				pr := checkstest.NewPR(src, inferencextest.Preset(repo.E2ELayout()),
					checkstest.Identity("SemiAnalysisAI", "InferenceX", 2611),
					func(pr *checks.PR) {
						pr.HeadSHA, pr.BaseTip = "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", ownersBase
						pr.SignOff = checks.SignOff{Author: "maintainer-a"}
					})
				return checkstest.RunOne(t, pr, inferencex.Codeowner)
			}},
		fcCase{name: "Check 0 changed files unreadable", check: inferencex.Codeowner, want: []string{"changed files", errUnreadable.Error()},
			run: func(t *testing.T, broken bool) checks.Result {
				src := &checkstest.Source{FilesValue: changed(amdMaster)}
				src.SetFile(ownersBase, ".github/CODEOWNERS", ownersFixture)
				if broken {
					src.FilesError = errUnreadable
				}
				pr := checkstest.NewPR(src, inferencextest.Preset(repo.E2ELayout()),
					checkstest.Identity("SemiAnalysisAI", "InferenceX", 2611),
					func(pr *checks.PR) {
						pr.HeadSHA, pr.BaseTip = "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", ownersBase
						pr.SignOff = checks.SignOff{Author: "amd-owner-a"}
					})
				return checkstest.RunOne(t, pr, inferencex.Codeowner)
			}},
		fcCase{name: "Check 1 check runs unreadable", check: inferencex.PassingSweep, want: []string{"check runs", errUnreadable.Error()},
			run: func(t *testing.T, broken bool) checks.Result {
				src := &checkstest.Source{CommitsValue: ciCommits(ciHead), Runs: map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")}}
				if broken {
					src.CheckRunsError = errUnreadable
				}
				return checkstest.RunOne(t, ciPR(src), inferencex.PassingSweep)
			}},
		fcCase{name: "Check 1 commits unreadable", check: inferencex.PassingSweep, want: []string{"commits", errUnreadable.Error()},
			run: func(t *testing.T, broken bool) checks.Result {
				src := &checkstest.Source{CommitsValue: ciCommits(ciHead), Runs: map[string][]checks.CheckRun{ciHead: ciGreen(ciRun, "agentic /", "agentic eval /")}}
				if broken {
					src.CommitsError = errUnreadable
				}
				return checkstest.RunOne(t, ciPR(src), inferencex.PassingSweep)
			}},
	)
	good := "[" + ciAggRow("0.973", "0.975", "") + "]"
	evals := func(what string, inject func(*checkstest.Source), want ...string) fcCase {
		return fcCase{name: "Check 2 " + what, check: inferencex.Evals, want: want,
			run: func(t *testing.T, broken bool) checks.Result {
				arts, data := ciAggArtifact(good)
				f := ciEvalFixture{arts: arts, data: data}
				if broken {
					f.inject = inject
				}
				return f.run(t)
			}}
	}
	cs = append(cs,
		evals("artifacts unreadable", func(s *checkstest.Source) { s.ArtifactsError = errUnreadable }, errUnreadable.Error()),
		evals("artifact files unreadable", func(s *checkstest.Source) { s.ArtifactFilesError = errUnreadable }, errUnreadable.Error()),
		evals("thresholds unreadable", func(s *checkstest.Source) {
			s.PathErrors = map[string]error{"utils/evals/thresholds.yaml": errUnreadable}
		}, "utils/evals/thresholds.yaml", errUnreadable.Error()),
	)
	recipe := func(what string, detail string, inject func(*checkstest.Source), want ...string) fcCase {
		return fcCase{name: "Check 3 " + what, check: inferencex.UpstreamRecipe, want: want,
			run: func(t *testing.T, broken bool) checks.Result {
				const script = "benchmarks/single_node/qwen3.5_fp8_b200_sglang.sh"
				e := recipeEntry("qwen3.5-fp8-b200-sglang", "sglang", false, false)
				e.Model = "Qwen/Qwen3.5-397B-A17B-FP8"
				cs := &changeset.Model{Affected: []*repo.ConfigEntry{e}, Effective: map[string][]*repo.EffectiveFile{
					e.Key: {{Path: script, Kind: "script", Settings: recipeSettings(script)}}}}
				src := recipeSource()
				if broken && inject != nil {
					inject(src)
				}
				if broken {
					if inject == nil {
						// The script the major args are read from.
						f := cs.Effective[e.Key][0]
						f.Settings, f.Err = nil, "tokenizing "+script+": line 3: unterminated double quote"
					}
				}
				return specRun(t, inferencex.UpstreamRecipe, specPR(t, cs, src, repo.LegacyLayout(), detail))
			}}
	}
	cs = append(cs,
		recipe("upstream PR unreadable", "- Recipe: https://github.com/sgl-project/sglang/pull/21873",
			func(s *checkstest.Source) { s.UpstreamPRError = errUnreadable }, "sgl-project/sglang#21873"),
		recipe("upstream PR files unreadable", "- Recipe: https://github.com/sgl-project/sglang/pull/21873",
			func(s *checkstest.Source) { s.UpstreamPRFilesError = errUnreadable }, "sgl-project/sglang#21873"),
		recipe("effective script unparseable", "- Recipe: https://github.com/sgl-project/sglang/pull/21873", nil,
			"benchmarks/single_node/qwen3.5_fp8_b200_sglang.sh", "unterminated"),
		recipe("published page unreadable", "- https://docs.sglang.io/cookbook/qwen3.5",
			func(s *checkstest.Source) { s.FetchPageError = errUnreadable }, "docs.sglang.io/cookbook/qwen3.5"),
		fcCase{name: "Check 4 comments unreadable", check: inferencex.ReuseCommand, want: []string{"comments", errUnreadable.Error()},
			run: func(t *testing.T, broken bool) checks.Result {
				src := inferencextest.ReuseSource()
				src.CommentsValue = []checks.Comment{{ID: 1, Author: "maintainer", Association: "MEMBER", Body: "/use 30123456789"}}
				src.RunList = []checks.WorkflowRun{src.Workflow[30123456789]}
				if broken {
					src.CommentsError = errUnreadable
				}
				settings := repo.Defaults()
				pr := checkstest.NewPR(src, checkstest.With(repo.SettingsParam, &settings),
					checkstest.Identity("o", "r", 12), func(pr *checks.PR) { pr.HeadRef = "feat" })
				return checkstest.RunOne(t, pr, inferencex.ReuseCommand)
			}},
		fcCase{name: "Check 5 template unreadable", check: inferencex.ChecklistTemplate, want: []string{repo.E2ELayout().Checklist, errUnreadable.Error()},
			run: func(t *testing.T, broken bool) checks.Result {
				tc := tplCase{body: signOffBody(currentItems, nil, "")}
				if broken {
					tc.inject = func(s *checkstest.Source) {
						s.PathErrors = map[string]error{repo.E2ELayout().Checklist: errUnreadable}
					}
				}
				return runTemplateCase(t, tc)
			}},
	)
	ao := func(what string, inject func(*checkstest.Source), want ...string) fcCase {
		return fcCase{name: "Check 12 " + what, check: inferencex.AppendOnly, want: want,
			run: func(t *testing.T, broken bool) checks.Result {
				const key = "dsv4-fp4-b300-vllm-agentic-mtp"
				const img = "vllm/vllm-openai:v0.12.0"
				tp8 := map[string]any{"tp": 8, "ep": 1, "conc-list": []any{4, 8}}
				tp8new := map[string]any{"tp": 8, "ep": 1, "conc-list": []any{4, 8, 16}}
				cs := &changeset.Model{
					ChangelogAdded: []perfchangelog.Entry{{ConfigKeys: []string{key}, AppendOnly: true, Line: 120, Matched: []string{key}}},
					MasterBase:     map[string]*repo.ConfigEntry{key: aoEntry(key, img, aoElem{tp8, []int{4, 8}})},
					MasterHead:     map[string]*repo.ConfigEntry{key: aoEntry(key, img, aoElem{tp8new, []int{4, 8, 16}})},
					ChangedKeys:    []string{key},
					Effective:      map[string][]*repo.EffectiveFile{},
				}
				src := &checkstest.Source{Runs: map[string][]checks.CheckRun{specHead: {{Name: "check-changelog", Status: "completed", Conclusion: "success"}}}}
				if broken {
					inject(src)
				}
				return specRun(t, inferencex.AppendOnly, specPR(t, cs, src, repo.LegacyLayout(), ""))
			}}
	}
	cs = append(cs, ao("check runs unreadable", func(s *checkstest.Source) { s.CheckRunsError = errUnreadable }, "check-changelog", errUnreadable.Error()))
	cs = append(cs, fcCase{name: "Check 12 master config unreadable/real builder", check: inferencex.AppendOnly,
		want: []string{"configs/amd-master.yaml", errUnreadable.Error()},
		run: func(t *testing.T, broken bool) checks.Result {
			r := inferencextest.NewRepo(repo.LegacyLayout())
			r.Head["configs/amd-master.yaml"] = strings.Replace(r.Head["configs/amd-master.yaml"], "conc-list: [1, 4, 8]", "conc-list: [1, 2, 4, 8]", 1)
			r.Head["perf-changelog.yaml"] += "\n- config-keys:\n    - exm-fp4-mi355x-vllm-agentic-mtp\n  description:\n    - \"Add conc 2\"\n  append-only: true\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2611\n"
			pr, src := r.PR(t)
			src.Runs = map[string][]checks.CheckRun{inferencextest.HeadSHA: {{Name: "check-changelog", Status: "completed", Conclusion: "success"}}}
			if broken {
				fcPathError("configs/amd-master.yaml")(r, src)
			}
			return checkstest.RunOne(t, pr, inferencex.AppendOnly)
		}})
	pareto := func(what string, inject func(*checkstest.Source), want ...string) fcCase {
		return fcCase{name: "Check 14 " + what, check: inferencex.ParetoCoverage, want: want,
			run: func(t *testing.T, broken bool) checks.Result {
				qwen7, qwenData := ciAgenticArt(11, "bmk_agentic_qwen", ciCurve(7, "qwen3.5", "mi355x-amds", "sglang", "fp8", "mtp", "img:a", false, ciXs, ciYs)...)
				f := ciParetoFixture{arts: []checks.Artifact{qwen7}, data: map[int64]map[string]string{11: qwenData}, affected: []*repo.ConfigEntry{ciQwenCfg()}}
				if broken {
					f.inject = inject
				}
				r, _ := f.run(t)
				return r
			}}
	}
	cs = append(cs,
		pareto("artifacts unreadable", func(s *checkstest.Source) { s.ArtifactsError = errUnreadable }, errUnreadable.Error()),
		pareto("artifact files unreadable", func(s *checkstest.Source) { s.ArtifactFilesError = errUnreadable }, errUnreadable.Error()),
	)
	return cs
}

func TestFailClosedAudit(t *testing.T) {
	cases := fcCases()
	covered := map[int]bool{}
	for _, tc := range cases {
		covered[tc.check.Number] = true
		t.Run(tc.name, func(t *testing.T) {
			ok := tc.run(t, false)
			if ok.Status != checks.Pass {
				t.Fatalf("baseline is not PASS, so the case proves nothing: %s %q", ok.Status, ok.Reason.EN)
			}
			bad := tc.run(t, true)
			if bad.Status == checks.Pass || bad.Status == checks.NA {
				t.Fatalf("row %s with an unreadable input: %q", bad.Status, bad.Reason.EN)
			}
			for _, w := range tc.want {
				if !strings.Contains(bad.Reason.EN, w) {
					t.Errorf("reason %q does not say what could not be read (%q)", bad.Reason.EN, w)
				}
			}
			if bad.Reason.ZH == "" || bad.Reason.ZH == bad.Reason.EN {
				t.Errorf("reason is not translated: %+v", bad.Reason)
			}
			if words := checkstest.EnglishInChinese(bad.Reason.ZH); len(words) > 0 {
				t.Errorf("Chinese reason %q leaves %q untranslated", bad.Reason.ZH, words)
			}
		})
	}
	for n := 0; n < 16; n++ {
		if !covered[n] {
			t.Errorf("Check %d has no fail-closed case", n)
		}
	}
}

// TestUnreadableSelectionDecidesNothing: a PR whose changed master config,
// or whose changelog entry, cannot be read leaves every row that reads the
// configs it selects undecided. None may pass, and none may say N/A: which
// configs the PR affects is exactly what is unknown. (Check 6 judges changed
// master entries only, so a changelog entry alone is N/A for it.)
func TestUnreadableSelectionDecidesNothing(t *testing.T) {
	rows := []*checks.Check{inferencex.UpstreamRecipe, inferencex.DeprecatedModels,
		inferencex.ArchitectureHacks, inferencex.ChatTemplate, inferencex.EnginePatches, inferencex.GoldenAcceptance,
		inferencex.AppendOnly, inferencex.DraftPrecision, inferencex.ParetoCoverage}
	cases := []struct {
		name  string
		edit  func(r *inferencextest.Repo)
		path  string
		extra []*checks.Check
	}{
		{"changed master config unreadable", fcBumpMTP, "configs/nvidia-master.yaml", []*checks.Check{inferencex.UpstreamImages}},
		{"new changelog entry unreadable", func(r *inferencextest.Repo) {
			r.AppendChangelog("dsr1-fp4-*")
			r.Detail = draftEvidence
		}, "perf-changelog.yaml", nil},
		{"new changelog entry with a master config unreadable", func(r *inferencextest.Repo) {
			r.AppendChangelog("dsr1-fp4-*")
			r.Detail = draftEvidence
		}, "configs/nvidia-master.yaml", nil},
	}
	for _, tc := range cases {
		for name, l := range inferencextest.Layouts() {
			for _, c := range append(rows, tc.extra...) {
				r := fcRepo(t, l, c, tc.edit, fcPathError(tc.path), true)
				if r.Status == checks.Pass || r.Status == checks.NA {
					t.Errorf("%s, %s: Check %d is %s: %q", tc.name, name, c.Number, r.Status, r.Reason.EN)
				}
			}
		}
	}
}
