package sweep

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/verdict-bot/verdict/checks"
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
	var fixed, perFixed, agentic []checks.Artifact
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
	want := func(name string) bool {
		b := path.Base(name)
		if agentic {
			return strings.HasSuffix(b, ".json")
		}
		return strings.HasPrefix(b, "agg_") && strings.HasSuffix(b, ".json")
	}
	files, err := src.ArtifactFiles(ctx, a, want)
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
