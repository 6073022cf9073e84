// Package sweep is the CI evidence of an InferenceX benchmark sweep: the
// check runs of a workflow run grouped into benchmark and eval jobs, the
// eval and benchmark artifacts the run uploaded, the eval thresholds, the
// app's series keys and Pareto frontier, and whether a run may be reused
// for another commit. Everything comes through a checks.Source.
package sweep

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// Selection is the run Check 1 chose, which Checks 2 and 14 assess.
type Selection struct {
	RunID   int64
	RunURL  string
	HeadSHA string // the in-PR commit the run's check runs are on
	// Benchmark and Eval are the run's deduplicated benchmark- and
	// eval-group check runs, sorted by name.
	Benchmark []checks.CheckRun
	Eval      []checks.CheckRun
	// Truncated is set when the PR's commit list hit GitHub's 250 cap.
	Truncated bool
}

// JobKind is the role of a check run in a sweep, by its group prefix.
type JobKind int

const (
	JobOther JobKind = iota
	JobBenchmark
	JobEval
	JobAggregator
)

func (k JobKind) String() string {
	switch k {
	case JobBenchmark:
		return "benchmark"
	case JobEval:
		return "eval"
	case JobAggregator:
		return "aggregator"
	}
	return "other"
}

// ClassifyJob returns the kind of a check run by name. Eval prefixes are
// tested first because several of them (`multi-node eval /`,
// `multi-node agentic eval /`) also start with a benchmark prefix
// (`multi-node `). Aggregators such as collect-evals never count: they can
// be green while every eval job was skipped. An aggregator matches by exact
// name or as a group (`collect-evals / …`).
func ClassifyJob(s *repo.Settings, name string) JobKind {
	for _, p := range s.EvalGroups {
		if p != "" && strings.HasPrefix(name, p) {
			return JobEval
		}
	}
	for _, a := range s.Aggregators {
		if a != "" && (name == a || strings.HasPrefix(name, a+" /") || strings.HasPrefix(name, a+" (")) {
			return JobAggregator
		}
	}
	for _, p := range s.BenchmarkGroups {
		if p != "" && strings.HasPrefix(name, p) {
			return JobBenchmark
		}
	}
	return JobOther
}

var runIDRE = regexp.MustCompile(`/actions/runs/(\d+)(?:/|$)`)

// RunIDFromURL parses the workflow run id from a check run's details_url
// (`…/actions/runs/<id>/job/<job>`); 0 when the URL names no run.
func RunIDFromURL(u string) int64 {
	m := runIDRE.FindStringSubmatch(u)
	if m == nil {
		return 0
	}
	id, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// runURL is the run page for a check run's details_url.
func runURL(detailsURL string) string {
	loc := runIDRE.FindStringIndex(detailsURL)
	if loc == nil {
		return ""
	}
	return strings.TrimSuffix(detailsURL[:loc[1]], "/")
}

// Executed reports whether a check run actually ran: completed and not
// skipped or neutral (reuse-gated no-op jobs conclude skipped).
func Executed(c checks.CheckRun) bool {
	return c.Status == "completed" && c.Conclusion != "skipped" && c.Conclusion != "neutral"
}

// latestByName keeps one check run per name: the latest started_at, then the
// highest id (a re-run creates a new check run with the same name).
func latestByName(runs []checks.CheckRun) []checks.CheckRun {
	best := map[string]checks.CheckRun{}
	for _, r := range runs {
		b, ok := best[r.Name]
		if !ok || r.StartedAt.After(b.StartedAt) || (r.StartedAt.Equal(b.StartedAt) && r.ID > b.ID) {
			best[r.Name] = r
		}
	}
	out := make([]checks.CheckRun, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Group is the benchmark and eval check runs of one workflow run on one
// commit.
type Group struct {
	RunID     int64
	RunURL    string
	Benchmark []checks.CheckRun
	Eval      []checks.CheckRun
}

// GroupByRun groups deduplicated check runs by workflow run id, ignoring
// check runs that belong to no Actions run and those that are neither
// benchmark nor eval jobs. Groups are returned newest run id first.
func GroupByRun(s *repo.Settings, runs []checks.CheckRun) []*Group {
	by := map[int64]*Group{}
	for _, r := range latestByName(runs) {
		k := ClassifyJob(s, r.Name)
		if k != JobBenchmark && k != JobEval {
			continue
		}
		id := RunIDFromURL(r.DetailsURL)
		if id == 0 {
			continue
		}
		g := by[id]
		if g == nil {
			g = &Group{RunID: id, RunURL: runURL(r.DetailsURL)}
			by[id] = g
		}
		if k == JobEval {
			g.Eval = append(g.Eval, r)
		} else {
			g.Benchmark = append(g.Benchmark, r)
		}
	}
	out := make([]*Group, 0, len(by))
	for _, g := range by {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RunID > out[j].RunID })
	return out
}

// Qualifies tells whether a group is a passing sweep and, if not, why (a
// short English and Chinese phrase).
func (g *Group) Qualifies(requireEval bool) (ok bool, why checks.Text) {
	count := func(rs []checks.CheckRun) (executed int, bad *checks.CheckRun, pending *checks.CheckRun) {
		for i := range rs {
			r := &rs[i]
			switch {
			case r.Status != "completed":
				if pending == nil {
					pending = r
				}
			case !Executed(*r):
			case r.Conclusion != "success":
				if bad == nil {
					bad = r
				}
				executed++
			default:
				executed++
			}
		}
		return
	}
	be, bbad, bpend := count(g.Benchmark)
	ee, ebad, epend := count(g.Eval)
	switch {
	case bbad != nil:
		return false, checks.T(bbad.Name+" concluded "+bbad.Conclusion, bbad.Name+" 结论为 "+bbad.Conclusion)
	case ebad != nil:
		return false, checks.T(ebad.Name+" concluded "+ebad.Conclusion, ebad.Name+" 结论为 "+ebad.Conclusion)
	case bpend != nil:
		return false, checks.T(bpend.Name+" is still "+bpend.Status, bpend.Name+" 仍为 "+bpend.Status)
	case epend != nil:
		return false, checks.T(epend.Name+" is still "+epend.Status, epend.Name+" 仍为 "+epend.Status)
	case be == 0:
		return false, checks.T("no benchmark job executed", "没有执行任何基准测试作业")
	case requireEval && ee == 0:
		return false, checks.T("no eval job executed", "没有执行任何评测作业")
	}
	return true, checks.Text{}
}

// CountExecuted counts the check runs that actually ran.
func CountExecuted(rs []checks.CheckRun) int {
	n := 0
	for _, r := range rs {
		if Executed(r) {
			n++
		}
	}
	return n
}
