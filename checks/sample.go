package checks

// SampleSignOff is the sign-off a code owner of a change would post, as
// the preset writes it (Preset.Sample): a replay of a repository's merged
// history has no real sign-off at hand, and verifies each change with this
// one instead.
type SampleSignOff struct {
	// Body is the sign-off's text, as a comment would hold it.
	Body string
	// Signer is the login (without "@") of the owner who would post it;
	// "" when the ownership rules name no individual.
	Signer string
}

// Inputs are what a preset's rows read of a change and could not use, and
// the change's changelog as they read it (Preset.Inputs). A replay of a
// repository's history reports them beside the rows, to tell the readers'
// failures from the changes' own.
type Inputs struct {
	// Problems are the inputs the rows could not read or parse, without
	// duplicates, sorted by path and then reason.
	Problems []InputProblem
	// NotText are the changed files without a patch that are not text,
	// sorted: no row reads their lines, and they are not problems.
	NotText []string
	// Changelog is the changelog the change may add entries to; nil when
	// the preset keeps none.
	Changelog *Changelog
}

// InputProblem is one input the rows could not use.
type InputProblem struct {
	Path string
	// Reason is the error that stopped the reading or parsing.
	Reason string
	// Kind is empty when the input could not be read or parsed; else it
	// names the rule the input was read in full and found to break (a
	// changelog schema or edit finding): the file's fault, not the
	// reader's.
	Kind string
	// Ref is the commit the input was read at when it is not the change's
	// head (the base or the default branch), so that whether it exists is
	// asked there.
	Ref string
}

// Changelog is the repository's changelog of benchmark runs as the rows
// read it for a change. The replay compares the entries the rows took as
// added with those the repository's own changelog tool takes, which it runs
// from Root.
type Changelog struct {
	// Layout names the repository layout the paths belong to; Root is
	// that layout's path prefix ("" at the repository's root).
	Layout, Root string
	// Path is the changelog's path; Changed whether the change touches it.
	Path    string
	Changed bool
	// Added are the entries the rows judged added by the change, in file
	// order.
	Added []ChangelogEntry
	// Problems are the problems found with the changelog itself, sorted:
	// with any, Added may be incomplete.
	Problems []string
}

// ChangelogEntry is the part of a changelog entry that identifies it.
type ChangelogEntry struct {
	// ConfigKeys select the configs the entry reruns.
	ConfigKeys  []string
	Description []string
	// PRLink is the pull request the entry credits.
	PRLink string
	// Line is the entry's 1-based line in the changelog at the head.
	Line int
}
