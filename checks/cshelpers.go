package checks

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// csChangeSetFor returns the change-set model or the fail-closed result a
// check reports when it could not be built.
func csChangeSetFor(ctx context.Context, pr *PR) (*ChangeSet, *Result) {
	cs, err := pr.ChangeSet(ctx)
	if err != nil || cs == nil {
		msg := "change-set model could not be built"
		if err != nil {
			msg = err.Error()
		}
		r := Unverified(T(msg, "无法构建变更集模型："+msg))
		return nil, &r
	}
	return cs, nil
}

// csUnreadable is the fail-closed result for inputs in problems.
func csUnreadable(ps []InputProblem) Result {
	p := ps[0]
	en := fmt.Sprintf("%s: %s", p.Path, p.Err)
	if len(ps) > 1 {
		en += fmt.Sprintf(" (+%d more)", len(ps)-1)
	}
	r := Unverified(T(en, en))
	for _, p := range ps {
		r.Evidence = append(r.Evidence, Evidence{Label: p.Path, Value: p.Err})
	}
	return r
}

// csMasterProblems are the problems of the master configs.
func csMasterProblems(pr *PR, cs *ChangeSet) []InputProblem {
	return cs.ProblemsFor(pr.Layout.ConfigsDir)
}

// csFindings collects one-line messages in both languages plus evidence.
type csFindings struct {
	en, zh []string
	ev     []Evidence
}

func (f *csFindings) add(en, zh string, ev ...Evidence) {
	for _, x := range f.en {
		if x == en {
			return
		}
	}
	f.en = append(f.en, en)
	f.zh = append(f.zh, zh)
	f.ev = append(f.ev, ev...)
}

func (f *csFindings) empty() bool { return len(f.en) == 0 }

// text joins the csFindings, root issue first.
func (f *csFindings) text() Text {
	return Text{EN: strings.Join(f.en, "; "), ZH: strings.Join(f.zh, "；")}
}

// csSentence ends s with a period.
func csSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

func csSentenceZH(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, "。") {
		return s
	}
	return s + "。"
}

// csLoc is "path:line".
func csLoc(p string, line int) string {
	if line <= 0 {
		return p
	}
	return fmt.Sprintf("%s:%d", p, line)
}

// csIsComment reports whether a diff or file line is a shell/YAML comment.
func csIsComment(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "#")
}

// csRuntimeAdded returns the added lines of changed benchmark, runner, config
// and workflow files, comments dropped, in path order.
func csRuntimeAdded(pr *PR, cs *ChangeSet, workflows bool) []struct {
	Path string
	DiffLine
} {
	var out []struct {
		Path string
		DiffLine
	}
	l := pr.Layout
	dirs := []string{l.BenchmarksDir, l.RunnersDir, l.ConfigsDir}
	if workflows {
		dirs = append(dirs, ".github/workflows")
	}
	paths := make([]string, 0, len(cs.AddedLines))
	for p := range cs.AddedLines {
		if IsDocFile(p) {
			continue // documentation is never a runtime setting
		}
		for _, d := range dirs {
			if d != "" && strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
				paths = append(paths, p)
				break
			}
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, d := range cs.AddedLines[p] {
			if csIsComment(d.Text) {
				continue
			}
			out = append(out, struct {
				Path string
				DiffLine
			}{p, d})
		}
	}
	return out
}

// csUnscanned returns the problems of changed runtime files (the
// directories of csRuntimeAdded) whose added lines are unknown, as GitHub
// omitted their patch, and that skip names as read whole. A check that
// scans added lines must not pass on such a file's silence.
func csUnscanned(pr *PR, cs *ChangeSet, workflows bool, skip map[string]bool) []InputProblem {
	l := pr.Layout
	dirs := []string{l.BenchmarksDir, l.RunnersDir, l.ConfigsDir}
	if workflows {
		dirs = append(dirs, ".github/workflows")
	}
	var out []InputProblem
	for _, p := range cs.Problems {
		if _, ok := cs.AddedLines[p.Path]; ok || skip[p.Path] || IsDocFile(p.Path) || !cs.IsChanged(p.Path) {
			continue
		}
		for _, d := range dirs {
			if d != "" && strings.HasPrefix(p.Path, strings.TrimSuffix(d, "/")+"/") {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// csAllEffective returns the distinct effective files of the affected
// configs plus the extra changed runtime files, in a stable order.
func csAllEffective(cs *ChangeSet) []*EffectiveFile {
	seen := map[string]bool{}
	var out []*EffectiveFile
	for _, e := range cs.Affected {
		for _, f := range cs.Effective[e.Key] {
			if f != nil && !seen[f.Path] {
				seen[f.Path] = true
				out = append(out, f)
			}
		}
	}
	for _, f := range cs.Extra {
		if f != nil && !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// csAddedLineSet reports, per file, which line numbers this PR added.
func csAddedLineSet(cs *ChangeSet, p string) map[int]bool {
	m := map[int]bool{}
	for _, d := range cs.AddedLines[p] {
		m[d.Line] = true
	}
	return m
}

// note records evidence without a message.
func (f *csFindings) note(ev ...Evidence) { f.ev = append(f.ev, ev...) }

// csBlocking turns collected findings into the row's result: any failure
// wins (with the review items' evidence kept), then anything needing review.
func csBlocking(fail, review *csFindings) (Result, bool) {
	switch {
	case !fail.empty():
		t := fail.text()
		return FailR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, append(fail.ev, review.ev...)...), true
	case !review.empty():
		t := review.text()
		return ReviewR(Text{EN: csSentence(t.EN), ZH: csSentenceZH(t.ZH)}, review.ev...), true
	}
	return Result{}, false
}
