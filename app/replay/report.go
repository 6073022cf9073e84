package replay

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Report is the outcome of a replay. Its JSON form is the machine-readable
// baseline; Text prints it for people.
type Report struct {
	Dir string `json:"repo_dir"`
	// Commits is the number of first-parent commits examined.
	Commits int      `json:"first_parent_commits"`
	PRs     []Result `json:"prs"`
	// ToolNote says why the changelog comparison did not run, if it did not.
	ToolNote string  `json:"tool_note,omitempty"`
	Seconds  float64 `json:"seconds"`
	Totals   Totals  `json:"totals"`
}

// Result is one replayed pull request.
type Result struct {
	PR
	// Error is set when the pull request could not be verified at all.
	Error string `json:"error,omitempty"`
	// Signer is the synthesized sign-off's author ("" when CODEOWNERS
	// names no individual).
	Signer string `json:"signer"`
	// Required is the scope gate's answer: false when only the core team
	// owns the change (the App would not verify it; the replay does).
	Required bool   `json:"signoff_required"`
	Verdict  string `json:"verdict,omitempty"`
	Rows     []Row  `json:"rows,omitempty"`
	// PassedAnyway are rows whose check passed without GitHub-only
	// evidence it asked for (shown as "could not be verified").
	PassedAnyway []int     `json:"passed_without_github_evidence,omitempty"`
	Affected     int       `json:"affected_configs"`
	Problems     []Problem `json:"reader_problems,omitempty"`
	// NotText are changed binary files: nothing to read, so not problems.
	NotText   []string  `json:"not_text,omitempty"`
	Changelog Changelog `json:"changelog"`
}

// Row is one check row of a replayed pull request.
type Row struct {
	Number int    `json:"number"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	// GitHubOnly is set when the row needed evidence only GitHub has.
	GitHubOnly bool `json:"github_only,omitempty"`
}

// Totals are the report's figures.
type Totals struct {
	PRs    int `json:"prs"`
	Squash int `json:"squash"`
	Merge  int `json:"merge_commits"`
	Errors int `json:"not_verifiable"`
	// ErrorCauses groups the not verifiable PRs by reason.
	ErrorCauses []CauseCount   `json:"not_verifiable_causes"`
	Required    int            `json:"signoff_required"`
	Verdicts    map[string]int `json:"verdicts"`
	// Rows counts statuses per check number; RowsGitHubOnly counts, per
	// check, the non-passing rows that needed GitHub-only evidence.
	Rows           map[int]map[string]int `json:"rows"`
	RowsGitHubOnly map[int]int            `json:"rows_github_only"`
	// RowReasons are, per check, the most frequent kinds of non-passing
	// reason (normalized as causes are), most frequent first.
	RowReasons   map[int][]CauseCount `json:"row_reasons"`
	PassedAnyway map[int]int          `json:"passed_without_github_evidence"`
	// Problems counts reader problems; ProblemPRs the PRs with any;
	// ProblemsOnExisting those on files that exist at the assessed commit
	// that could not be read; FindingsOnExisting, by kind, those on existing
	// files read in full that break a rule (Problem.Kind).
	Problems           int            `json:"reader_problems"`
	ProblemPRs         int            `json:"prs_with_reader_problems"`
	ProblemsOnExisting int            `json:"reader_problems_on_existing_files"`
	FindingsOnExisting map[string]int `json:"findings_on_existing_files,omitempty"`
	// NotText counts changed binary files (not reader problems).
	NotText int          `json:"not_text_files"`
	Causes  []CauseCount `json:"causes"`
	Files   []FileCount  `json:"files"`
	// Changelog counts comparison statuses.
	Changelog map[string]int `json:"changelog"`
}

// CauseCount is one kind of reader problem.
type CauseCount struct {
	Cause    string   `json:"cause"`
	Count    int      `json:"count"`
	PRs      int      `json:"prs"`
	Existing int      `json:"on_existing_files"`
	Examples []string `json:"examples"`
}

// FileCount is one file with reader problems.
type FileCount struct {
	Path string `json:"path"`
	// PRs is how many pull requests hit a problem on it; Missing how many
	// of those had it absent at the assessed commit.
	PRs     int `json:"prs"`
	Missing int `json:"missing"`
	// Reasons are its distinct reasons with a line, most frequent first.
	Reasons []string `json:"reasons"`
}

// maxExamples bounds the examples kept per cause and reasons per file.
const maxExamples = 3

// Summarize computes Totals from PRs (Run does; a report read back from
// JSON can be summarized again after the counting rules change).
func (r *Report) Summarize() {
	t := Totals{
		Verdicts: map[string]int{}, Rows: map[int]map[string]int{}, RowsGitHubOnly: map[int]int{},
		PassedAnyway: map[int]int{}, Changelog: map[string]int{},
	}
	rowReasons := map[int]map[string]*CauseCount{}
	errs := map[string]*CauseCount{}
	causes := map[string]*CauseCount{}
	causePRs := map[string]map[int]bool{}
	files := map[string]*FileCount{}
	reasons := map[string]map[string]int{}
	for _, p := range r.PRs {
		t.PRs++
		if p.Merge {
			t.Merge++
		} else {
			t.Squash++
		}
		if p.Error != "" {
			t.Errors++
			k := cause("", p.Error)
			if errs[k] == nil {
				errs[k] = &CauseCount{Cause: k}
			}
			errs[k].Count++
			errs[k].PRs++
			if len(errs[k].Examples) < maxExamples {
				errs[k].Examples = append(errs[k].Examples, fmt.Sprintf("#%d", p.Number))
			}
			continue
		}
		if p.Required {
			t.Required++
		}
		t.Verdicts[p.Verdict]++
		for _, row := range p.Rows {
			if t.Rows[row.Number] == nil {
				t.Rows[row.Number] = map[string]int{}
			}
			t.Rows[row.Number][row.Status]++
			if row.GitHubOnly && row.Status != "PASS" {
				t.RowsGitHubOnly[row.Number]++
			}
			if row.Status != "PASS" && row.Status != "N/A" {
				k := row.Status + " " + cause("", row.Reason)
				if rowReasons[row.Number] == nil {
					rowReasons[row.Number] = map[string]*CauseCount{}
				}
				c := rowReasons[row.Number][k]
				if c == nil {
					c = &CauseCount{Cause: k}
					rowReasons[row.Number][k] = c
				}
				c.Count++
				c.PRs++
				if len(c.Examples) < 1 {
					c.Examples = append(c.Examples, clip(fmt.Sprintf("#%d: %s", p.Number, row.Reason), maxCauseRunes))
				}
			}
		}
		for _, n := range p.PassedAnyway {
			t.PassedAnyway[n]++
		}
		t.Changelog[p.Changelog.Status]++
		t.NotText += len(p.NotText)
		if len(p.Problems) > 0 {
			t.ProblemPRs++
		}
		seenFile := map[string]bool{}
		for _, pb := range p.Problems {
			t.Problems++
			switch {
			case pb.Exists && pb.Kind != "":
				if t.FindingsOnExisting == nil {
					t.FindingsOnExisting = map[string]int{}
				}
				t.FindingsOnExisting[pb.Kind]++
			case pb.Exists:
				t.ProblemsOnExisting++
			}
			c := causes[pb.Cause]
			if c == nil {
				c = &CauseCount{Cause: pb.Cause}
				causes[pb.Cause], causePRs[pb.Cause] = c, map[int]bool{}
			}
			c.Count++
			if pb.Exists {
				c.Existing++
			}
			if !causePRs[pb.Cause][p.Number] {
				causePRs[pb.Cause][p.Number] = true
				c.PRs++
				if len(c.Examples) < maxExamples {
					c.Examples = append(c.Examples, clip(fmt.Sprintf("#%d %s: %s", p.Number, pb.Where(), pb.Reason), maxCauseRunes))
				}
			}
			f := files[pb.Path]
			if f == nil {
				f = &FileCount{Path: pb.Path}
				files[pb.Path], reasons[pb.Path] = f, map[string]int{}
			}
			if !seenFile[pb.Path] {
				seenFile[pb.Path] = true
				f.PRs++
				if !pb.Exists {
					f.Missing++
				}
			}
			// Per file, reasons differ only by the commit they name.
			reasons[pb.Path][shaRE.ReplaceAllString(pb.Reason, "<sha>")]++
		}
	}
	t.Causes = byCount(causes, 0)
	t.ErrorCauses = byCount(errs, 0)
	t.RowReasons = map[int][]CauseCount{}
	for n, m := range rowReasons {
		t.RowReasons[n] = byCount(m, maxRowReasons)
	}
	for p, f := range files {
		f.Reasons = topReasons(reasons[p])
		t.Files = append(t.Files, *f)
	}
	sort.Slice(t.Files, func(i, j int) bool {
		if t.Files[i].PRs != t.Files[j].PRs {
			return t.Files[i].PRs > t.Files[j].PRs
		}
		return t.Files[i].Path < t.Files[j].Path
	})
	r.Totals = t
}

// maxTextFiles bounds the files the text report lists.
const maxTextFiles = 40

// maxRowReasons bounds the reasons kept per check.
const maxRowReasons = 8

// byCount sorts counts, most frequent first, keeping at most max (0: all).
func byCount(m map[string]*CauseCount, max int) []CauseCount {
	out := make([]CauseCount, 0, len(m))
	for _, c := range m {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Cause < out[j].Cause
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

func topReasons(m map[string]int) []string {
	type rc struct {
		r string
		n int
	}
	var all []rc
	for r, n := range m {
		all = append(all, rc{r, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].r < all[j].r
	})
	var out []string
	for i, x := range all {
		if i == maxExamples {
			out = append(out, fmt.Sprintf("… and %d more", len(all)-maxExamples))
			break
		}
		out = append(out, fmt.Sprintf("%d× %s", x.n, x.r))
	}
	return out
}

// statuses are the row statuses in the order the table prints them.
var statuses = []string{"PASS", "FAIL", "WARN", "N/A"}

// Text prints the report: totals, reader problems by cause and by file,
// rows per status per check, the changelog comparison and every
// disagreement, per pull request.
func (r *Report) Text(w io.Writer) {
	t := r.Totals
	fmt.Fprintf(w, "Replay of %s: %d first-parent commits, %d merged pull requests (%d squash, %d merge commits), %.0f s.\n",
		r.Dir, r.Commits, t.PRs, t.Squash, t.Merge, r.Seconds)
	fmt.Fprintf(w, "Sign-off required (CODEOWNERS at the parent): %d; core team only: %d (checks run on all). Not verifiable: %d.\n",
		t.Required, t.PRs-t.Errors-t.Required, t.Errors)
	fmt.Fprintf(w, "Verdicts: %s.\n", countList(t.Verdicts, []string{"PASS", "WARN", "REJECTED"}))
	for _, c := range t.ErrorCauses {
		fmt.Fprintf(w, "  not verifiable: %d× %s (%s)\n", c.Count, c.Cause, strings.Join(c.Examples, ", "))
	}

	fmt.Fprintf(w, "\nReader problems: %d in %d pull requests, %d on files that exist at the assessed commit, %d files (changed binary files, not read: %d).\n",
		t.Problems, t.ProblemPRs, t.ProblemsOnExisting, len(t.Files), t.NotText)
	if len(t.FindingsOnExisting) > 0 {
		kinds := make([]string, 0, len(t.FindingsOnExisting))
		for k := range t.FindingsOnExisting {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "Of them, files read in full that break a rule (not counted as on existing files):")
		for _, k := range kinds {
			fmt.Fprintf(w, " %s %d;", k, t.FindingsOnExisting[k])
		}
		fmt.Fprintln(w)
	}
	if len(t.Causes) > 0 {
		fmt.Fprintln(w, "By cause (problems, pull requests, on existing files):")
		for _, c := range t.Causes {
			fmt.Fprintf(w, "  %5d %5d %5d  %s\n", c.Count, c.PRs, c.Existing, c.Cause)
			for _, e := range c.Examples {
				fmt.Fprintf(w, "                     e.g. %s\n", e)
			}
		}
		fmt.Fprintln(w, "By file (pull requests, of which the file was missing):")
		for i, f := range t.Files {
			if i == maxTextFiles {
				fmt.Fprintf(w, "  … %d more files (--format json lists them all)\n", len(t.Files)-maxTextFiles)
				break
			}
			fmt.Fprintf(w, "  %5d %5d  %s\n", f.PRs, f.Missing, f.Path)
			for _, rs := range f.Reasons {
				fmt.Fprintf(w, "                %s\n", rs)
			}
		}
	}

	fmt.Fprintln(w, "\nRows per check (GitHub-only: non-passing rows that needed evidence only GitHub has; passed-anyway: rows whose check passed without it):")
	fmt.Fprintf(w, "  %-5s %6s %6s %6s %6s %12s %14s\n", "check", "PASS", "FAIL", "WARN", "N/A", "GitHub-only", "passed-anyway")
	nums := make([]int, 0, len(t.Rows))
	for n := range t.Rows {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		fmt.Fprintf(w, "  %-5d %6d %6d %6d %6d %12d %14d\n", n, t.Rows[n]["PASS"], t.Rows[n]["FAIL"], t.Rows[n]["WARN"], t.Rows[n]["N/A"], t.RowsGitHubOnly[n], t.PassedAnyway[n])
	}

	fmt.Fprintln(w, "\nMost frequent non-passing reasons per check (count, status and reason kind; one example):")
	for _, n := range nums {
		for _, c := range t.RowReasons[n] {
			fmt.Fprintf(w, "  %2d %5d  %s\n", n, c.Count, c.Cause)
			for _, e := range c.Examples {
				fmt.Fprintf(w, "              e.g. %s\n", e)
			}
		}
	}

	fmt.Fprintf(w, "\nChangelog entries added, Verdict vs process_changelog.py: %s.\n",
		countList(t.Changelog, []string{"agree", "disagree", "refused", "untouched", "no-tool", "skipped", "error", "no-changelog"}))
	if r.ToolNote != "" {
		fmt.Fprintf(w, "  %s\n", r.ToolNote)
	}
	for _, p := range r.PRs {
		c := p.Changelog
		switch c.Status {
		case "disagree":
			fmt.Fprintf(w, "  #%d %s disagrees:\n", p.Number, short(p.SHA))
			for _, e := range c.OnlyOurs {
				fmt.Fprintf(w, "      only Verdict: %s\n", e)
			}
			for _, e := range c.OnlyTool {
				fmt.Fprintf(w, "      only tool:    %s\n", e)
			}
			for _, e := range c.VerdictProblems {
				fmt.Fprintf(w, "      Verdict's changelog problem: %s\n", e)
			}
		case "error":
			fmt.Fprintf(w, "  #%d %s tool error: %s\n", p.Number, short(p.SHA), c.ToolError)
		}
	}
	refusals := map[string][]int{}
	for _, p := range r.PRs {
		if p.Changelog.Status == "refused" {
			refusals[cause("", p.Changelog.ToolError)] = append(refusals[cause("", p.Changelog.ToolError)], p.Number)
		}
	}
	if len(refusals) > 0 {
		fmt.Fprintln(w, "  The tool refused (by reason):")
		keys := make([]string, 0, len(refusals))
		for k := range refusals {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(refusals[keys[i]]) != len(refusals[keys[j]]) {
				return len(refusals[keys[i]]) > len(refusals[keys[j]])
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Fprintf(w, "    %4d  %s  (%s)\n", len(refusals[k]), k, prList(refusals[k]))
		}
	}
}

func countList(m map[string]int, order []string) string {
	var parts []string
	for _, k := range order {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func prList(ns []int) string {
	var parts []string
	for i, n := range ns {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(ns)-8))
			break
		}
		parts = append(parts, fmt.Sprintf("#%d", n))
	}
	return strings.Join(parts, " ")
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
