package repo

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

// TestHistoryReaderProblems reads every distinct blob that was ever an
// effective-file candidate of the real InferenceX history (a bare clone named
// by VERDICT_INFERENCEX_MIRROR): each *.sh / *.bash script under benchmarks/
// and runners/ (and their inferencex-e2e/ copies) as the change-set model
// reads a script, each srt-slurm recipe as it reads a recipe (its benchmark
// commands parsed as bash). Every blob the readers reject is listed; a
// script the reader rejects must be one bash rejects too (bash -n).
func TestHistoryReaderProblems(t *testing.T) {
	mirror := checkstest.Mirror(t)
	blobs := checkstest.HistoryBlobs(t, mirror, effectiveCandidate)
	ids := make([]string, 0, len(blobs))
	for id := range blobs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var problems []string
	scripts, recipes := 0, 0
	checkstest.CatBlobs(t, mirror, ids, func(id string, data []byte) {
		p := blobs[id][0]
		ef := &EffectiveFile{Path: p, Kind: "helper"}
		if isRecipe(p) {
			ef.Kind = "recipe"
			recipes++
		} else {
			scripts++
		}
		ef.Read(data)
		if ef.Err == "" {
			return
		}
		msg := fmt.Sprintf("%s %s (%d paths): %s", id[:12], p, len(blobs[id]), ef.Err)
		switch {
		case ef.Kind != "recipe":
			verdict := checkstest.BashSays(t, data)
			msg += " | bash -n: " + verdict
			if verdict == "accepts" {
				t.Errorf("rejected a script bash accepts: %s", msg)
			}
		case strings.Contains(ef.Err, "malformed YAML"):
			// The YAML decoder's own refusal: the file is not YAML.
		default:
			// A recipe refused for its benchmark command: bash must refuse
			// that command too.
			verdict := "no command"
			for _, c := range recipeCommands(data) {
				if verdict = checkstest.BashSays(t, []byte(c)); verdict != "accepts" {
					break
				}
			}
			msg += " | bash -n on its command: " + verdict
			if verdict == "accepts" || verdict == "no command" {
				t.Errorf("rejected a recipe whose commands bash accepts: %s", msg)
			}
		}
		problems = append(problems, msg)
	})
	t.Logf("%d distinct blobs (%d scripts, %d recipes) of %d paths: %d reader problems", len(ids), scripts, recipes, checkstest.PathCount(blobs), len(problems))
	for _, p := range problems {
		t.Log(p)
	}
}

// recipeCommands are the command strings of a recipe (every scalar under a
// command: key).
func recipeCommands(data []byte) []string {
	root, err := yamlx.DecodeNode(data)
	if err != nil || root == nil {
		return nil
	}
	var out []string
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 64 {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k, v := n.Content[i], n.Content[i+1]; k.Value == "command" && v.Kind == yaml.ScalarNode {
					out = append(out, v.Value)
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return out
}

func isRecipe(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
}

// effectiveCandidate is a path the change-set model may read as an
// effective file: a script under benchmarks/ or runners/, or a recipe under
// srt-slurm-recipes/.
func effectiveCandidate(p string) bool {
	rel := strings.TrimPrefix(p, "inferencex-e2e/")
	script := (strings.HasPrefix(rel, "benchmarks/") || strings.HasPrefix(rel, "runners/")) && helperExt.MatchString(rel)
	return script || strings.Contains(rel, "srt-slurm-recipes/") && isRecipe(rel)
}
