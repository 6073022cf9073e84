package changeset

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// A workflow file is YAML, and most of it never runs: names, conditions,
// inputs, and prose handed to other tools (a reviewer prompt that lists
// "git apply" and "sitecustomize" among the things to look for). What a
// runner executes is its steps' run: scripts, so the added lines of a
// changed workflow that rows scan as runtime are those inside a run:
// value of a job on a runner that can serve benchmarks. A workflow that
// cannot be read or parsed keeps all its added lines.

// isWorkflow reports whether p is a GitHub Actions workflow file.
func isWorkflow(p string) bool {
	return strings.HasPrefix(p, ".github/workflows/") && (path.Ext(p) == ".yml" || path.Ext(p) == ".yaml")
}

// workflowRuns records, for each changed workflow with added lines, the
// line ranges of its run: scripts at H.
func (b *builder) workflowRuns() {
	for p := range b.cs.AddedLines {
		if !isWorkflow(p) {
			continue
		}
		data, err := b.reader.Read(b.ctx, b.head, p)
		if err != nil {
			continue
		}
		root, err := yamlx.DecodeNode(data)
		if err != nil || root == nil {
			continue
		}
		if b.cs.runLines == nil {
			b.cs.runLines = map[string][][2]int{}
		}
		b.cs.runLines[p] = jobRunRanges(root)
	}
}

// jobRunRanges are the run: scripts of a workflow's jobs, except those of
// jobs on a GitHub-hosted runner (ubuntu-*, windows-*, macos-*): a
// hosted runner is a fresh machine that never serves a benchmark, so what
// its scripts install cannot change what is benchmarked.
func jobRunRanges(root *yaml.Node) [][2]int {
	jobs := mappingValue(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return runRanges(root, 0)
	}
	var out [][2]int
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		job := jobs.Content[i+1]
		if hostedRunner(mappingValue(job, "runs-on")) {
			continue
		}
		out = append(out, runRanges(job, 0)...)
	}
	return out
}

// mappingValue is the value of key in mapping n, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// hostedRunner reports whether a runs-on value names only GitHub-hosted
// runners (a label or list of them; an expression is not known to).
func hostedRunner(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	labels := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		labels = n.Content
	}
	if len(labels) == 0 {
		return false
	}
	for _, l := range labels {
		v := l.Value
		if l.Kind != yaml.ScalarNode || strings.Contains(v, "${{") ||
			!(strings.HasPrefix(v, "ubuntu-") || strings.HasPrefix(v, "windows-") || strings.HasPrefix(v, "macos-")) {
			return false
		}
	}
	return true
}

// runRanges are the first and last lines of every run: value under n.
func runRanges(n *yaml.Node, depth int) [][2]int {
	if n == nil || depth > yamlx.MaxDepth {
		return nil
	}
	var out [][2]int
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "run" && v.Kind == yaml.ScalarNode {
				// A block scalar's text starts on the line after its
				// indicator; a plain or quoted one on its own line.
				out = append(out, [2]int{v.Line, v.Line + strings.Count(v.Value, "\n") + 1})
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, runRanges(c, depth+1)...)
	}
	return out
}

// inRunScript reports whether line l of workflow p can be run: inside a
// run: value, or anywhere in a workflow whose scripts are unknown.
func (cs *Model) inRunScript(p string, l int) bool {
	ranges, known := cs.runLines[p]
	if !known {
		return true
	}
	for _, r := range ranges {
		if l >= r[0] && l <= r[1] {
			return true
		}
	}
	return false
}
