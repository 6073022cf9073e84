package repo

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/format/yamlx"
)

// TestHistoryReaderProblems reads every distinct blob that was ever an
// effective-file candidate of the real InferenceX history (a bare clone named
// by VERDICT_INFERENCEX_MIRROR): each *.sh / *.bash script under benchmarks/
// and runners/ (and their inferencex-e2e/ copies) as the change-set model
// reads a script, each srt-slurm recipe as it reads a recipe (its benchmark
// commands parsed as bash). Every blob the readers reject is listed; a
// script the reader rejects must be one bash rejects too (bash -n).
func TestHistoryReaderProblems(t *testing.T) {
	mirror := os.Getenv("VERDICT_INFERENCEX_MIRROR")
	if mirror == "" {
		t.Skip("VERDICT_INFERENCEX_MIRROR (a bare clone of SemiAnalysisAI/InferenceX) is not set")
	}
	blobs := effectiveBlobs(t, mirror)
	ids := make([]string, 0, len(blobs))
	for id := range blobs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var problems []string
	scripts, recipes := 0, 0
	readBlobs(t, mirror, ids, func(id string, data []byte) {
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
			verdict := bashSays(t, data)
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
				if verdict = bashSays(t, []byte(c)); verdict != "accepts" {
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
	t.Logf("%d distinct blobs (%d scripts, %d recipes) of %d paths: %d reader problems", len(ids), scripts, recipes, pathCount(blobs), len(problems))
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

// effectiveBlobs maps every blob that was ever a script under benchmarks/ or
// runners/, or a recipe under srt-slurm-recipes/, to its paths.
func effectiveBlobs(t *testing.T, repo string) map[string][]string {
	out, err := exec.Command("git", "-C", repo, "log", "--all", "--raw", "--no-abbrev", "--no-renames", "--format=", "--root", "-m").Output()
	if err != nil {
		t.Fatalf("git log: %v", err)
	}
	m := map[string][]string{}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		meta, p, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 5 || strings.Trim(f[3], "0") == "" {
			continue
		}
		rel := strings.TrimPrefix(p, "inferencex-e2e/")
		script := (strings.HasPrefix(rel, "benchmarks/") || strings.HasPrefix(rel, "runners/")) && helperExt.MatchString(rel)
		recipe := strings.Contains(rel, "srt-slurm-recipes/") && isRecipe(rel)
		if !script && !recipe {
			continue
		}
		if k := f[3] + p; !seen[k] {
			seen[k] = true
			m[f[3]] = append(m[f[3]], p)
		}
	}
	return m
}

func pathCount(m map[string][]string) int {
	ps := map[string]bool{}
	for _, v := range m {
		for _, p := range v {
			ps[p] = true
		}
	}
	return len(ps)
}

// readBlobs streams blobs through one git cat-file --batch.
func readBlobs(t *testing.T, repo string, ids []string, f func(string, []byte)) {
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	for range ids {
		hdr, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file: %v", err)
		}
		h := strings.Fields(hdr)
		if len(h) != 3 {
			t.Fatalf("cat-file: %q", hdr)
		}
		n, _ := strconv.Atoi(h[2])
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		f(h[0], buf[:n])
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

// bashSays is what bash -n (parse only) says about a script: "accepts" or
// its first complaint.
func bashSays(t *testing.T, data []byte) string {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "bash not installed"
	}
	f := t.TempDir() + "/s.sh"
	if err := os.WriteFile(f, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bash, "-n", f)
	cmd.Stderr = &stderr
	err = cmd.Run()
	msg, _, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(stderr.String(), f, "script")), "\n")
	switch {
	case err != nil && msg != "":
		return "rejects (" + msg + ")"
	case err != nil:
		return "rejects (" + err.Error() + ")"
	case msg != "":
		return "reports (" + msg + ")"
	}
	return "accepts"
}
