package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// ConfigErrorMarker keys the one comment per PR saying that the
// repository's configuration is invalid; it is updated in place, so
// repeated events never add a second one.
const ConfigErrorMarker = "<!-- verdict-config-error -->"

// maxConfigProblems bounds the listed problems; the rest are counted.
const maxConfigProblems = 20

// ConfigError is the data of the invalid-configuration comment.
type ConfigError struct {
	File   string // repository path, e.g. .github/verdict.yml
	Branch string // the default branch it was read from
	SHA    string // the commit it was read at
	// FileURL is the file's https address at SHA ("" leaves lines unlinked).
	FileURL  string
	Problems []ConfigProblem
}

// ConfigProblem is one problem of the file, in both languages.
type ConfigProblem struct {
	Line   int // 0: the whole file
	EN, ZH string
}

type configErrorData struct {
	File, Branch, ShortSHA string
	Problems               []configProblemRow
	More                   int
}

type configProblemRow struct {
	Line   int
	URL    string
	EN, ZH string
}

var (
	fullSHARE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	repoPath  = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
)

// ConfigErrorMarkdown renders the invalid-configuration comment: marker,
// English, Chinese in <details>.
func ConfigErrorMarkdown(c ConfigError) (string, error) {
	if !fullSHARE.MatchString(c.SHA) {
		return "", fmt.Errorf("config error comment: invalid commit %q", c.SHA)
	}
	if !repoPath.MatchString(c.File) {
		return "", fmt.Errorf("config error comment: invalid file %q", c.File)
	}
	if len(c.Problems) == 0 {
		return "", fmt.Errorf("config error comment: no problem to report")
	}
	if c.FileURL != "" && !linkURL(c.FileURL) {
		return "", fmt.Errorf("config error comment: invalid file link %q", c.FileURL)
	}
	d := configErrorData{File: c.File, Branch: strings.ReplaceAll(defang(c.Branch), "`", "'"), ShortSHA: c.SHA[:12]}
	for i, p := range c.Problems {
		if i == maxConfigProblems {
			d.More = len(c.Problems) - i
			break
		}
		row := configProblemRow{Line: p.Line, EN: defang(p.EN), ZH: defang(p.ZH)}
		if row.ZH == "" {
			row.ZH = row.EN
		}
		if c.FileURL != "" && p.Line > 0 {
			row.URL = c.FileURL + "#L" + strconv.Itoa(p.Line)
		}
		d.Problems = append(d.Problems, row)
	}
	return bilingual(ConfigErrorMarker, "config.invalid", d)
}

// defang makes quoted file content inert in a comment: one line, no HTML,
// no @mentions (a word joiner after @ keeps the text readable).
func defang(s string) string {
	return checks.NoMentions(cleanInline(s))
}
