package checks

import "context"

// ReuseRules are how a preset decides the reuse commands (/use and
// /reuse-sweep-run) its rows read. The app answers each command (its
// reaction and reply, the order of the checks, the race with newer
// comments); the preset decides who may give one and whether the run a
// request names may be reused, from its own settings. Both are required.
type ReuseRules struct {
	// Associations are the author associations (OWNER, MEMBER, …) whose
	// reuse commands count, from the settings the preset's Configure read
	// onto pr.
	Associations func(pr *PR) []string
	// Eligible decides a well-formed request from an authorized author on
	// an open pull request. pr is the request's pull request as far as a
	// command needs it: Owner, Repo, Number, HeadRef, Labels, Source,
	// DefaultBranch and DefaultSHA are set, and the preset's Configure has
	// read its settings onto it.
	Eligible func(ctx context.Context, pr *PR, req ReuseRequest) ReuseDecision
}

// ReuseRequest is a parsed reuse command. Its fields are those of
// commands.Reuse (checks/format/commands), which this package may not
// import, so that either converts to the other.
type ReuseRequest struct {
	// Name is "/use" or "/reuse-sweep-run".
	Name string
	// Pinned is set when the command names a source run.
	Pinned bool
	// RunIDText is the pinned run id in canonical decimal; RunID is its
	// value, or 0 when it does not fit an int64 (no run has that id).
	RunIDText string
	RunID     int64
}

// ReuseDecision is a preset's answer to a reuse request.
type ReuseDecision struct {
	// Eligible is set when Run may be reused.
	Eligible bool
	// Run is the source run that was judged (the pinned run, or the one
	// the preset chose); zero when there was none.
	Run WorkflowRun
	// Reason is one line: why the request is not eligible, or which run it
	// would reuse.
	Reason Text
	// Err is set when the evidence could not be read; Eligible is then
	// false and Reason says what is missing. A lasting cause (ErrForbidden,
	// ErrMalformed, ErrTooLarge) is answered with Reason; any other leaves
	// the request unanswered, to be tried again.
	Err error
}
