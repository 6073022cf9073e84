package checklist

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// A Starter is what `verdict init` knows of a repository: its checklist
// and the names of the check runs its workflows start.
type Starter struct {
	// Checklist is the checklist file's path and Template its content.
	Checklist string
	Template  []byte
	// Workflows are the repository's workflow files by path.
	Workflows map[string][]byte
	// Phrase is the sign-off phrase to suggest ("" for the default).
	Phrase string
}

// guess is a binding the starter proposes, with why.
type guess struct {
	Item
	why string
}

// maxWorkflowJobs bounds the check-run names read from workflows.
const maxWorkflowJobs = 50

// Config writes a starting .github/verdict.yml for the checklist preset:
// every checklist item bound to the verifier it most likely means, or to
// attested, with a comment saying why and what to adjust. The file is
// valid as written (a test holds it to parseSettings).
func (s Starter) Config() ([]byte, error) {
	parsed := signoff.Parse(string(s.Template))
	if parsed.Unreadable != "" {
		return nil, fmt.Errorf("reading %s: %s", s.Checklist, parsed.Unreadable)
	}
	if len(parsed.Items) == 0 {
		return nil, fmt.Errorf("%s has no checkbox items (- [ ] …) to bind", s.Checklist)
	}
	jobs := checkRunNames(s.Workflows)
	var b strings.Builder
	b.WriteString("# .github/verdict.yml, written by `verdict init` as a start: read every binding,\n")
	b.WriteString("# adjust it, and validate with `verdict config check`. Verifiers: files, lines,\n")
	b.WriteString("# checks, linked, labels, dco, attested (see the README, \"Use Verdict on your\n")
	b.WriteString("# repository\"). An item bound to attested is shown as the signer's word.\n")
	b.WriteString("preset: checklist\n")
	if s.Phrase != "" {
		fmt.Fprintf(&b, "signoff_phrase: %s\n", quote(s.Phrase))
	}
	b.WriteString("preset_settings:\n")
	fmt.Fprintf(&b, "  checklist: %s\n", quote(s.Checklist))
	b.WriteString("  items:\n")
	seen := map[string]bool{}
	for _, it := range parsed.Items {
		text := strings.Join(strings.Fields(it.Text), " ")
		if text == "" || seen[text] {
			continue
		}
		seen[text] = true
		g := guessFor(text, jobs)
		g.Item.Item = text
		writeItem(&b, g)
	}
	return []byte(b.String()), nil
}

func writeItem(b *strings.Builder, g guess) {
	fmt.Fprintf(b, "    # %s\n", g.why)
	fmt.Fprintf(b, "    - item: %s\n", quote(g.Item.Item))
	fmt.Fprintf(b, "      verify: %s\n", g.Verify)
	list := func(key string, vs []string) {
		if len(vs) == 0 {
			return
		}
		q := make([]string, len(vs))
		for i, v := range vs {
			q[i] = quote(v)
		}
		fmt.Fprintf(b, "      %s: [%s]\n", key, strings.Join(q, ", "))
	}
	list("names", g.Names)
	list("require", g.Require)
	list("forbid", g.Forbid)
	list("paths", g.Paths)
	list("absent", g.Absent)
	if g.State != "" {
		fmt.Fprintf(b, "      state: %s\n", g.State)
	}
	if g.Accept != "" {
		fmt.Fprintf(b, "      accept: %s\n", g.Accept)
	}
}

// quote writes s as a YAML scalar that reads back as s.
func quote(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// The keyword rules, first match wins: what an item most likely claims.
var (
	dcoRule = regexp.MustCompile(`(?i)\b(dco|signed-off-by|sign-off|signed off|developer certificate)`)
	// signatureRule is an item about signed commits ("All commits are
	// GPG-signed", "Commit signatures are verified"), read once the
	// sign-off words are taken out, so that "commits are signed off" is
	// not one; a contributor licence agreement is signed, but not in a
	// commit.
	signatureRule = regexp.MustCompile(`(?i)\b(gpg|pgp|s/mime)\b|\bcommits?\b.*\b(signed|signatures?)\b|\b(signed|signatures?)\b.*\bcommits?\b`)
	signOffWords  = regexp.MustCompile(`(?i)\b(signed[- ]off(-by)?|sign[- ]offs?)\b`)
	claRule       = regexp.MustCompile(`(?i)\b(cla|contributor licen[cs]e)\b`)
	// issueRule is an item about a linked issue ("Fixes a linked issue",
	// "Closes #<issue>"); issueDone is one whose issue must already be
	// closed as done, rather than still open for this PR to close.
	issueRule     = regexp.MustCompile(`(?i)\b(issues?|tickets?)\b.*\b(links?|linked|fix|fixes|close|closes|resolve|resolves|references?)\b|\b(links?|linked|fix|fixes|close|closes|resolve|resolves|references?)\b.*\b(issues?|tickets?)\b`)
	issueDone     = regexp.MustCompile(`(?i)\b(completed|resolved|closed|done)\b`)
	changelogRule = regexp.MustCompile(`(?i)\b(changelog|change log|changes|release notes?|news entry|changeset|history)\b`)
	// namedFile is a repository file an item names in backticks
	// ("an entry in `CHANGES.rst`"): the file that must change.
	namedFile = regexp.MustCompile("`([A-Za-z0-9_][A-Za-z0-9_./-]*\\.[A-Za-z0-9]+)`")
	// testsAdded is an item that asks for tests to be written, not run.
	testsAdded = regexp.MustCompile(`(?i)\b(add|added|adds|write|wrote|written|include|includes|cover|covers|update|updated)\b.*\btests?\b|\btests?\b.*\b(added|written|included|updated)\b`)
	linkedRule = regexp.MustCompile(`(?i)\b(linked|link)\b.*\b(merged|pull request|pr)\b|\b(pull request|pr|merged)\b.*\b(linked|link)\b`)
	ciRule     = regexp.MustCompile(`(?i)\b(ci|checks?|builds?|pipelines?|workflows?|green|pass|passes|passed|passing|run|ran|fail|fails|failed|failing)\b`)
	testRule   = regexp.MustCompile(`(?i)\b(tests?|test cases?|coverage)\b`)
	debugRule  = regexp.MustCompile(`(?i)\b(debug|console\.log|print statements?|debugger|breakpoints?)\b`)
	doNotMerge = regexp.MustCompile(`(?i)\bdo[- ]not[- ]merge\b`)
)

// testFiles binds an item that asks for tests: a test file must change.
var testFiles = guess{Item{Verify: KindFiles, Require: []string{"*_test.*", "*.test.*", "*.spec.*", "test_*", "test/**", "tests/**"}},
	"a test file must change; keep your repository's test patterns, and add when: [...] to ask only for source changes"}

func guessFor(text string, jobs []string) guess {
	signature := signatureRule.MatchString(signOffWords.ReplaceAllString(text, "")) && !claRule.MatchString(text)
	switch {
	case signature && dcoRule.MatchString(text):
		return guess{Item{Verify: KindDCO, Accept: AcceptEither}, "every commit must carry a Signed-off-by trailer or a signature GitHub verified"}
	case signature:
		return guess{Item{Verify: KindDCO, Accept: AcceptSignature}, "every commit must carry a signature GitHub verified (GPG, SSH or S/MIME); accept: either also takes a Signed-off-by trailer"}
	case dcoRule.MatchString(text):
		return guess{Item{Verify: KindDCO}, "every commit must carry a Signed-off-by trailer"}
	case changelogRule.MatchString(text) && namedFile.MatchString(text):
		f := namedFile.FindStringSubmatch(text)[1]
		return guess{Item{Verify: KindFiles, Require: []string{f}},
			"the file the item names must change; add when: [...] to ask only for source changes"}
	case changelogRule.MatchString(text):
		return guess{Item{Verify: KindFiles, Require: []string{"CHANGELOG*", "CHANGES*", "HISTORY*", "NEWS*", "changelog.d/**", ".changeset/**", "news/**"}},
			"a changelog file must change; keep the patterns your repository uses, and add when: [...] to ask only for source changes"}
	case issueRule.MatchString(text) && issueDone.MatchString(text):
		return guess{Item{Verify: KindLinked, State: StateCompleted},
			"an issue (or pull request) linked from the description must be closed as completed (a pull request: merged); add repos: [owner/name] when it lives elsewhere"}
	case issueRule.MatchString(text):
		return guess{Item{Verify: KindLinked, State: StateOpen},
			"an issue linked from the description must still be open (this PR is to close it); use state: completed when it must be done already, and add repos: [owner/name] when it lives elsewhere"}
	case linkedRule.MatchString(text):
		return guess{Item{Verify: KindLinked}, "a pull request linked from the description must be merged; add repos: [owner/name] when it lives elsewhere, state: completed to accept an issue closed as completed too"}
	case doNotMerge.MatchString(text):
		return guess{Item{Verify: KindLabels, Absent: []string{"do-not-merge"}}, "the PR must not carry the label; use your repository's label names"}
	case testsAdded.MatchString(text):
		return testFiles
	case ciRule.MatchString(text) && len(jobs) > 0:
		return guess{Item{Verify: KindChecks, Names: jobs},
			"these check runs must be green on the head commit (names read from the workflows; keep the required ones, or add commit: any)"}
	case ciRule.MatchString(text):
		return guess{Item{Verify: KindAttested}, "CI, but no pull-request workflow names its check runs: bind verify: checks with names: [...] to verify it"}
	case testRule.MatchString(text):
		return testFiles
	case debugRule.MatchString(text):
		return guess{Item{Verify: KindLines, Forbid: []string{`console\.log\(`, `\bdebugger\b`, `fmt\.Print`, `pdb\.set_trace\(`, `\bbreakpoint\(\)`}},
			"no added line may match these patterns; add paths: [...] to limit them, and waivers: DIR to allow a waiver file"}
	}
	return guess{Item{Verify: KindAttested}, "no verifier recognised this item: it is shown as the signer's word, not verified"}
}

// checkRunNames are the names the workflows' jobs report check runs under:
// a job's name, or its key, sorted, matrix jobs left out (their names
// carry the matrix values).
func checkRunNames(workflows map[string][]byte) []string {
	var out []string
	paths := make([]string, 0, len(workflows))
	for p := range workflows {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		var wf struct {
			On   any `yaml:"on"`
			Jobs map[string]struct {
				Name     string         `yaml:"name"`
				Strategy map[string]any `yaml:"strategy"`
			} `yaml:"jobs"`
		}
		if yaml.Unmarshal(workflows[p], &wf) != nil || !runsOnPulls(wf.On) {
			continue
		}
		for key, j := range wf.Jobs {
			if j.Strategy["matrix"] != nil {
				continue
			}
			name := cmp.Or(j.Name, key)
			if strings.Contains(name, "${{") || slices.Contains(out, name) {
				continue
			}
			out = append(out, name)
		}
	}
	sort.Strings(out)
	if len(out) > maxWorkflowJobs {
		out = out[:maxWorkflowJobs]
	}
	return out
}

// runsOnPulls reports a workflow trigger that includes pull requests.
func runsOnPulls(on any) bool {
	has := func(e string) bool { return e == "pull_request" || e == "pull_request_target" }
	switch v := on.(type) {
	case string:
		return has(v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok && has(s) {
				return true
			}
		}
	case map[string]any:
		for e := range v {
			if has(e) {
				return true
			}
		}
	}
	return false
}
