package replay

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/checks"
)

// Problem is one input the change-set model could not read or parse.
type Problem struct {
	Path string `json:"path"`
	// Line is the line the reason names (0 when it names none).
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	// Cause is Reason with the file, numbers, quoted text and commit IDs
	// taken out, so problems of one kind group together.
	Cause string `json:"cause"`
	// Exists says whether Path is a file or directory at the assessed
	// commit: a problem on an existing file is a reader failure, one on a
	// missing file may be the change's own fault. A path with a ":selector"
	// suffix exists when the file before the suffix does (Selector is the
	// suffix then).
	Exists   bool   `json:"exists"`
	Selector string `json:"selector,omitempty"`
	// Kind is empty when the file could not be read, or names the rule a
	// file read in full breaks (a changelog schema or edit finding): such a
	// problem is the file's, not the reader's.
	Kind string `json:"kind,omitempty"`
}

// Where is "path:line", or the path when no line is known.
func (p Problem) Where() string {
	if p.Line > 0 {
		return p.Path + ":" + strconv.Itoa(p.Line)
	}
	return p.Path
}

var (
	lineRE   = regexp.MustCompile(`\bline (\d+)\b`)
	shaRE    = regexp.MustCompile(`\b[0-9a-f]{7,64}\b`)
	quotedRE = regexp.MustCompile("\"[^\"]*\"|'[^']*'|`[^`]*`")
	entryRE  = regexp.MustCompile(`\bentry \S+ at\b`)
	keyRE    = regexp.MustCompile(`\bkey \S+`)
	numberRE = regexp.MustCompile(`\b\d+\b`)
	pathRE   = regexp.MustCompile(`\b[\w.-]+(?:/[\w.-]+)+\b`)
)

func readerProblem(ctx context.Context, repo *gitsource.Repo, sha string, p checks.InputProblem) Problem {
	out := Problem{Path: p.Path, Reason: p.Reason, Kind: p.Kind}
	if m := lineRE.FindStringSubmatch(p.Reason); m != nil {
		out.Line, _ = strconv.Atoi(m[1])
	} else if i := strings.Index(p.Reason, p.Path+":"); i >= 0 {
		rest := p.Reason[i+len(p.Path)+1:]
		if j := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); j > 0 {
			out.Line, _ = strconv.Atoi(rest[:j])
		}
	}
	out.Cause = cause(p.Path, p.Reason)
	if p.Ref != "" {
		// Read at the base or the default branch: it exists or not there.
		sha = p.Ref
	}
	out.Exists, _ = repo.Exists(ctx, sha, p.Path)
	if i := strings.LastIndexByte(p.Path, ':'); !out.Exists && i > 0 {
		// "recipe.yaml:zip_override_x[0]" names a part of a file: the
		// file is what exists or not.
		if ok, _ := repo.Exists(ctx, sha, p.Path[:i]); ok {
			out.Exists, out.Selector = true, p.Path[i+1:]
		}
	}
	return out
}

// cause normalizes a reason into its kind.
func cause(path, reason string) string {
	c := reason
	if path != "" {
		c = strings.ReplaceAll(c, path, "<file>")
	}
	c = quotedRE.ReplaceAllString(c, "<q>")
	c = entryRE.ReplaceAllString(c, "entry <key> at")
	c = keyRE.ReplaceAllString(c, "key <key>")
	c = pathRE.ReplaceAllString(c, "<path>")
	c = shaRE.ReplaceAllString(c, "<sha>")
	c = numberRE.ReplaceAllString(c, "N")
	return clip(c, maxCauseRunes)
}

// maxCauseRunes bounds a cause and an example in the report: some reasons
// list every finding of a row.
const maxCauseRunes = 240

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
