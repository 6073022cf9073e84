package checks

import "reflect"

// Settings are the top-level keys a preset takes in the repository's
// configuration file beside the app's own: the app checks a file against
// the keys of every preset it serves (types, enumerations, bounds,
// patterns, typos) and publishes them in the configuration's JSON Schema,
// and refuses a key of another preset than the repository's. The preset
// reads the values itself, in Configure.
type Settings struct {
	// Default returns a new struct value holding the keys' defaults; its
	// type, with yaml tags (",inline" allowed), is what the keys decode
	// into. A new value each call: decoding writes into its maps.
	Default func() reflect.Value
	// Keys document and constrain every key of that type, nested keys by
	// their dotted path and a mapping's keys as "*"; a test holds the two
	// equal.
	Keys []SettingKey
}

// SettingKey documents and constrains one key of the configuration file.
// Constraints on a list or mapping apply to every scalar in it.
type SettingKey struct {
	// Path is the key's dotted path; "*" stands for any key of a mapping.
	Path string
	Doc  string
	// Refused keys decode but must not be set; the text says what to do
	// instead.
	Refused *Text
	// Enum lists the accepted strings.
	Enum []string
	// Min and Max bound numbers (inclusive); both zero means unbounded.
	Min, Max float64
	// Pattern must match every string; written in the common subset of RE2
	// and ECMA-262 so that editors apply the same rule. Means says what it
	// requires, for messages.
	Pattern string
	Means   Text
	// KeyPattern constrains a mapping's keys; KeyMeans says what it
	// requires.
	KeyPattern string
	KeyMeans   Text
}

// Value rules shared by the app's keys and the presets'.
var (
	// RelPath is a clean, relative, forward-slash path inside the
	// repository: segments are neither empty, "." nor "..", and no
	// backslash appears.
	RelPath = SettingKey{
		Pattern: `^(?:[^/\\.][^/\\]*|\.[^/\\.][^/\\]*|\.\.[^/\\]+)(?:/(?:[^/\\.][^/\\]*|\.[^/\\.][^/\\]*|\.\.[^/\\]+))*$`,
		Means:   T("a relative path inside the repository (forward slashes, no .. or leading /)", "仓库内的相对路径（使用 /，不含 .. 且不以 / 开头）"),
	}
	// NonEmpty is any string with a character other than white space.
	NonEmpty = SettingKey{Pattern: `\S`, Means: T("non-empty", "非空")}
	// Handle is a GitHub user or team handle.
	Handle = SettingKey{
		Pattern: `^@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9._-]+)?$`,
		Means:   T("a GitHub handle such as @login or @org/team", "GitHub 账号或团队，例如 @login 或 @org/team"),
	}
)

// Key is the key at path with doc, constrained by rule's value rule.
func (rule SettingKey) Key(path, doc string) SettingKey {
	rule.Path, rule.Doc = path, doc
	return rule
}
