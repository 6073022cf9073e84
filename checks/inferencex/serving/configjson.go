package serving

import (
	"regexp"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

var (
	configJSONRE = regexp.MustCompile(`config\.json`)
	sedInPlaceRE = regexp.MustCompile(`(^|[\s;&|(])sed\s+(-[A-Za-z]*i|--in-place)`)
	jqRE         = regexp.MustCompile(`(^|[\s;&|(])jq\s`)
	pythonRE     = regexp.MustCompile(`(^|[\s;&|(])python[0-9.]*\s`)
	pyWritesRE   = regexp.MustCompile(`json\.dump\(|\.write\(|write_text\(|open\([^)]*["'][wa]\+?["']`)
)

// EditsConfigJSON reports whether a command edits a model's config.json
// in place: sed -i or jq on it, or a Python program (-c or a heredoc) that
// names it and writes a file. However it is written, such an edit changes
// what the model is (Check 8).
func EditsConfigJSON(c repo.Command) bool {
	text := c.Raw + "\n" + c.Heredoc
	if !configJSONRE.MatchString(text) {
		return false
	}
	if sedInPlaceRE.MatchString(c.Raw) || jqRE.MatchString(c.Raw) {
		return true
	}
	return pythonRE.MatchString(c.Raw) && pyWritesRE.MatchString(text)
}
