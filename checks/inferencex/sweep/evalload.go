package sweep

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// EvalLoad is what a run's eval artifacts hold.
type EvalLoad struct {
	Rows      []EvalRow
	Artifacts []string // artifact names read, sorted
	// Problem, when set, is the FAIL row that ends Check 2 (expired,
	// unavailable, incomplete batched evals, unreadable).
	Problem *checks.Result
	// Notes are facts that did not decide the row (per-config artifacts
	// that could not be read to cross-check batched evals).
	Notes []string
}

// LoadEvalRows reads the eval rows of run from its artifacts: the aggregate
// eval_results_all (agg_eval_all.json) when present, else every aggregate
// eval_results_<prefix>, else the per-config eval_* artifacts
// (meta_env.json + results*.json).
func LoadEvalRows(ctx context.Context, src checks.Source, run int64, arts []checks.Artifact) EvalLoad {
	var agg, per []checks.Artifact
	for _, a := range arts {
		switch {
		case a.Name == "eval_results_all":
			agg = append([]checks.Artifact{a}, agg...)
		case strings.HasPrefix(a.Name, "eval_results_"):
			agg = append(agg, a)
		case strings.HasPrefix(a.Name, "eval_server_logs_"):
		case strings.HasPrefix(a.Name, "eval_"):
			per = append(per, a)
		}
	}
	if len(agg) > 0 && agg[0].Name == "eval_results_all" {
		agg = agg[:1]
	}
	sortArtifacts(agg)
	sortArtifacts(per)
	switch {
	case len(agg) > 0:
		// The aggregate has no eval_concs: the per-config meta_env.json
		// files say which concurrencies a batched job had to finish. They
		// are read alongside the aggregate and used unless it has a problem.
		var batched *checks.Result
		var notes []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			if len(per) > 0 {
				batched, notes = batchedAcross(ctx, src, run, per)
			}
		}()
		ld := loadArtifacts(ctx, src, run, agg, false)
		<-done
		if ld.Problem == nil && len(per) > 0 {
			ld.Problem, ld.Notes = batched, notes
		}
		return ld
	case len(per) > 0:
		return loadArtifacts(ctx, src, run, per, true)
	}
	r := checks.FailR(checks.T(
		fmt.Sprintf("Eval artifacts unavailable: run %d has no eval_results_* or eval_* artifact.", run),
		fmt.Sprintf("评测产物不可用：运行 %d 没有 eval_results_* 或 eval_* 产物。", run)))
	return EvalLoad{Problem: &r}
}

func sortArtifacts(as []checks.Artifact) {
	sort.SliceStable(as, func(i, j int) bool {
		if (as[i].Name == "eval_results_all") != (as[j].Name == "eval_results_all") {
			return as[i].Name == "eval_results_all"
		}
		if as[i].Name != as[j].Name {
			return as[i].Name < as[j].Name
		}
		return as[i].ID > as[j].ID
	})
}

var (
	aggEvalRE = regexp.MustCompile(`^agg_eval_[^/]*\.json$`)
	resultsRE = regexp.MustCompile(`^results[^/]*\.json$`)
	concRE    = regexp.MustCompile(`_conc(\d+)\.json$`)
)

func aggEvalFile(name string) bool { return aggEvalRE.MatchString(path.Base(name)) }

func perConfigEvalFile(name string) bool {
	b := path.Base(name)
	return b == "meta_env.json" || resultsRE.MatchString(b)
}

// artifactRows parses one downloaded artifact into rows, or says why it
// cannot be used.
type artifactRows struct {
	rows    []EvalRow
	problem *checks.Result
	// batched is an incomplete batched eval job (also set as problem).
	batched *checks.Result
}

func loadArtifacts(ctx context.Context, src checks.Source, run int64, arts []checks.Artifact, perConfig bool) EvalLoad {
	out := EvalLoad{}
	for _, a := range arts {
		out.Artifacts = append(out.Artifacts, a.Name)
		if a.Expired {
			r := expiredRow(run, a.Name)
			out.Problem = &r
			return out
		}
	}
	for _, p := range readEvalArtifacts(ctx, src, run, arts, perConfig) {
		if p.problem != nil {
			out.Problem = p.problem
			return out
		}
		out.Rows = append(out.Rows, p.rows...)
	}
	return out
}

func readEvalArtifacts(ctx context.Context, src checks.Source, run int64, arts []checks.Artifact, perConfig bool) []artifactRows {
	parts := make([]artifactRows, len(arts))
	eachArtifact(arts, func(i int, a checks.Artifact) {
		parts[i] = readEvalArtifact(ctx, src, run, a, perConfig)
	})
	return parts
}

// batchedAcross checks batched-eval completeness from the per-config
// artifacts when the rows come from an aggregate. An unreadable per-config
// artifact is a note, not a failure: the aggregate rows are the scores.
func batchedAcross(ctx context.Context, src checks.Source, run int64, per []checks.Artifact) (*checks.Result, []string) {
	var notes []string
	for i, p := range readEvalArtifacts(ctx, src, run, per, true) {
		switch {
		case p.batched != nil:
			return p.batched, nil
		case per[i].Expired:
			notes = append(notes, per[i].Name+" expired")
		case p.problem != nil:
			notes = append(notes, per[i].Name+": "+p.problem.Reason.EN)
		}
	}
	return nil, notes
}

func expiredRow(run int64, name string) checks.Result {
	return checks.FailR(checks.T(
		fmt.Sprintf("Eval artifacts expired: %s of run %d can no longer be downloaded.", name, run),
		fmt.Sprintf("评测产物已过期：运行 %d 的 %s 已无法下载。", run, name)))
}

func readEvalArtifact(ctx context.Context, src checks.Source, run int64, a checks.Artifact, perConfig bool) artifactRows {
	want := aggEvalFile
	if perConfig {
		want = perConfigEvalFile
	}
	files, err := src.ArtifactFiles(ctx, a, want)
	if errors.Is(err, checks.ErrExpired) {
		r := expiredRow(run, a.Name)
		return artifactRows{problem: &r}
	}
	if err != nil {
		r := checks.Unverified(checks.T(
			fmt.Sprintf("could not read eval artifact %s of run %d: %v", a.Name, run, err),
			fmt.Sprintf("无法读取运行 %d 的评测产物 %s：%s", run, a.Name, checks.Code(err.Error()))))
		return artifactRows{problem: &r}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	malformed := func(f checks.ArtifactFile, err error) artifactRows {
		r := checks.Unverified(checks.T(
			fmt.Sprintf("eval artifact %s of run %d has an unreadable %s: %v", a.Name, run, f.Name, err),
			fmt.Sprintf("运行 %d 的评测产物 %s 中的 %s 无法解析：%v", run, a.Name, f.Name, err)))
		return artifactRows{problem: &r}
	}
	var out artifactRows
	var meta *MetaEnv
	concFiles := map[int]bool{}
	for _, f := range files {
		base := path.Base(f.Name)
		switch {
		case !perConfig && aggEvalRE.MatchString(base):
			rows, err := ParseAggEval(f.Data)
			if err != nil {
				return malformed(f, err)
			}
			out.rows = append(out.rows, rows...)
		case !perConfig:
		case base == "meta_env.json":
			m, err := ParseMetaEnv(f.Data)
			if err != nil {
				return malformed(f, err)
			}
			meta = &m
		case resultsRE.MatchString(base):
			rows, ok, err := ParseLMEvalResult(f.Data)
			if err != nil {
				return malformed(f, err)
			}
			if !ok {
				continue
			}
			conc := ""
			if m := concRE.FindStringSubmatch(base); m != nil {
				conc = m[1]
				var n int
				fmt.Sscan(m[1], &n)
				concFiles[n] = true
			}
			for i := range rows {
				rows[i].Conc = conc
				rows[i].Source = a.Name + "/" + base
			}
			out.rows = append(out.rows, rows...)
		}
	}
	if meta != nil {
		for i := range out.rows {
			r := &out.rows[i]
			r.ModelPrefix, r.HW, r.Framework, r.Precision, r.SpecDecoding = meta.ModelPrefix, meta.HW, meta.Framework, meta.Precision, meta.SpecDecoding
			if r.Conc == "" {
				r.Conc = meta.Conc
			}
		}
		if p := batchedProblem(run, a.Name, *meta, concFiles); p != nil {
			out.problem, out.batched = p, p
		}
	} else if perConfig && len(out.rows) > 0 {
		r := checks.Unverified(checks.T(
			fmt.Sprintf("eval artifact %s of run %d has results but no meta_env.json naming its model", a.Name, run),
			fmt.Sprintf("运行 %d 的评测产物 %s 有结果但缺少标明模型的 meta_env.json", run, a.Name)))
		out.problem = &r
	}
	return out
}

// batchedProblem checks a batched eval job: every requested concurrency
// completed, none failed, and each has its own _conc<N> result file.
func batchedProblem(run int64, art string, m MetaEnv, concFiles map[int]bool) *checks.Result {
	if !m.Batched {
		return nil
	}
	concs := slices.Clone(m.EvalConcs)
	sort.Ints(concs)
	for _, c := range concs {
		var why, whyZH string
		switch {
		case slices.Contains(m.Failed, c):
			why, whyZH = "failed", "失败"
		case !slices.Contains(m.Completed, c):
			why, whyZH = "did not complete", "未完成"
		case !concFiles[c]:
			why, whyZH = fmt.Sprintf("has no _conc%d result file", c), fmt.Sprintf("没有 _conc%d 结果文件", c)
		default:
			continue
		}
		r := checks.FailR(checks.T(
			fmt.Sprintf("Batched evals incomplete: concurrency %d %s in %s of run %d (eval_concs %v).", c, why, art, run, concs),
			fmt.Sprintf("批量评测不完整：运行 %d 的 %s 中并发 %d %s（eval_concs %v）。", run, art, c, whyZH, concs)))
		return &r
	}
	return nil
}
