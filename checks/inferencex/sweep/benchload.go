package sweep

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// BenchLoad is what a run's benchmark artifacts hold.
type BenchLoad struct {
	Rows []BenchRow
	// Kinds names the artifact families read, for the reason
	// ("results_bmk", "bmk_agentic_*").
	Kinds []string
	// Unverifiable says why the points cannot be trusted to be complete
	// (expired or unreadable artifacts, none at all); empty when fine.
	Unverifiable checks.Text
}

// LoadBenchRows reads the benchmark points of run from its artifacts only:
// the fixed-seq aggregate results_bmk (agg_bmk.json; per-config bmk_<name>
// agg_*.json when there is no aggregate) and every bmk_agentic_* artifact
// (every JSON file, including multi-node `_conc<N>` variants).
func LoadBenchRows(ctx context.Context, src checks.Source, run int64, arts []checks.Artifact) BenchLoad {
	fixed, agentic := benchArtifacts(arts)
	var out BenchLoad
	if len(fixed) > 0 {
		out.Kinds = append(out.Kinds, family(fixed[0]))
	}
	if len(agentic) > 0 {
		out.Kinds = append(out.Kinds, "bmk_agentic_*")
	}
	all := append(append([]checks.Artifact{}, fixed...), agentic...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Name != all[j].Name {
			return all[i].Name < all[j].Name
		}
		return all[i].ID < all[j].ID
	})
	if len(all) == 0 {
		out.Unverifiable = checks.T(
			fmt.Sprintf("run %d has no results_bmk or bmk_agentic_* artifact", run),
			fmt.Sprintf("运行 %d 没有 results_bmk 或 bmk_agentic_* 产物", run))
		return out
	}
	var expired []string
	for _, a := range all {
		if a.Expired {
			expired = append(expired, a.Name)
		}
	}
	if len(expired) > 0 {
		return expiredBench(out, run, expired)
	}

	type part struct {
		rows []BenchRow
		err  error
	}
	parts := make([]part, len(all))
	eachArtifact(all, func(i int, a checks.Artifact) {
		rows, err := readBenchArtifact(ctx, src, a)
		parts[i] = part{rows, err}
	})
	for i, p := range parts {
		if errors.Is(p.err, checks.ErrExpired) {
			expired = append(expired, all[i].Name)
			continue
		}
		if p.err != nil {
			out.Unverifiable = checks.T(
				fmt.Sprintf("artifact %s of run %d is unreadable: %v", all[i].Name, run, p.err),
				fmt.Sprintf("运行 %d 的产物 %s 无法读取：%s", run, all[i].Name, checks.Code(p.err.Error())))
			return out
		}
		out.Rows = append(out.Rows, p.rows...)
	}
	if len(expired) > 0 {
		return expiredBench(out, run, expired)
	}
	return out
}

// benchArtifacts are the artifacts of a run that hold its benchmark
// points: the fixed-seq aggregate results_bmk (the per-config bmk_* when
// there is none) and every bmk_agentic_*.
func benchArtifacts(arts []checks.Artifact) (fixed, agentic []checks.Artifact) {
	var perFixed []checks.Artifact
	for _, a := range arts {
		switch {
		case a.Name == "results_bmk":
			fixed = append(fixed, a)
		case strings.HasPrefix(a.Name, "bmk_agentic_"):
			agentic = append(agentic, a)
		case strings.HasPrefix(a.Name, "bmk_"):
			perFixed = append(perFixed, a)
		}
	}
	if len(fixed) == 0 {
		fixed = perFixed
	}
	return fixed, agentic
}

// MayMoveCurves reports whether a change to files can affect a benchmark
// curve as Check 14 decides it from the change set: some changed file that
// is not documentation lies under the configs, benchmarks or runners
// directory, or is the changelog. Only then can the change set affect a
// config or leave a benchmark file unmapped. A verification reads the
// benchmark artifacts ahead (BenchReads) only for such a PR.
func MayMoveCurves(l repo.Layout, files []checks.ChangedFile) bool {
	under := func(p, dir string) bool { return dir != "" && strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/") }
	for _, f := range files {
		for _, p := range []string{f.Path, f.PreviousPath} {
			if p == "" || repo.IsDocFile(p) {
				continue
			}
			if p == l.Changelog || l.UnderConfigs(p) || under(p, l.BenchmarksDir) || under(p, l.RunnersDir) {
				return true
			}
		}
	}
	return false
}

// BenchReads are the archive reads LoadBenchRows makes of a run whose
// artifacts are arts: the wanted entries of each artifact it reads, by
// artifact ID. It reads none when one of them has expired.
func BenchReads(arts []checks.Artifact) map[int64]func(name string) bool {
	fixed, agentic := benchArtifacts(arts)
	out := map[int64]func(string) bool{}
	for _, a := range append(fixed, agentic...) {
		if a.Expired {
			return nil
		}
		out[a.ID] = benchEntries(a)
	}
	return out
}

// benchEntries says which entries of benchmark artifact a hold its points.
func benchEntries(a checks.Artifact) func(name string) bool {
	agentic := strings.HasPrefix(a.Name, "bmk_agentic_")
	return func(name string) bool {
		b := path.Base(name)
		if agentic {
			return strings.HasSuffix(b, ".json")
		}
		return strings.HasPrefix(b, "agg_") && strings.HasSuffix(b, ".json")
	}
}

// family names the artifact family of a fixed-seq benchmark artifact.
func family(a checks.Artifact) string {
	if a.Name == "results_bmk" {
		return "results_bmk"
	}
	return "bmk_*"
}

func expiredBench(out BenchLoad, run int64, names []string) BenchLoad {
	sort.Strings(names)
	out.Unverifiable = checks.T(
		fmt.Sprintf("artifacts of run %d expired (%s)", run, strings.Join(names, ", ")),
		fmt.Sprintf("运行 %d 的产物已过期（%s）", run, strings.Join(names, ", ")))
	return out
}

func readBenchArtifact(ctx context.Context, src checks.Source, a checks.Artifact) ([]BenchRow, error) {
	agentic := strings.HasPrefix(a.Name, "bmk_agentic_")
	files, err := src.ArtifactFiles(ctx, a, benchEntries(a))
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var out []BenchRow
	for _, f := range files {
		var rows []BenchRow
		if agentic {
			rows, err = ParseAgenticResult(f.Data)
		} else {
			rows, err = ParseAggBmk(f.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(f.Name), err)
		}
		for i := range rows {
			rows[i].Artifact = a.Name
		}
		out = append(out, rows...)
	}
	return out, nil
}
