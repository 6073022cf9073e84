package jobs

import "github.com/verdict-bot/verdict/checks/format/signoff"

// Job kinds of a PR's life after its verdict and of the App's own upkeep.
// They are stored in the queue: never rename one.
const (
	KindHeadMoved = "verdict.head_moved"
	KindRecover   = "verdict.recover_deliveries"
)

// HeadMovedArgs says that new commits were pushed to a PR
// (pull_request.synchronize): its earlier verdicts no longer cover the head.
// Nothing is re-verified; the new head is marked as needing a sign-off.
type HeadMovedArgs struct {
	Repo
	PR int `json:"pr"`
	// Before and After are the payload's heads; the handler re-reads the PR
	// and marks its current head, which a later push may have moved again.
	Before     string `json:"before"`
	After      string `json:"after"`
	DeliveryID string `json:"delivery_id"`
}

// Kind implements Args.
func (HeadMovedArgs) Kind() string { return KindHeadMoved }

// RecoverArgs asks for one pass of missed-webhook recovery: the App's recent
// deliveries that failed and that Verdict never stored are redelivered. The
// queue schedules it periodically on one process.
type RecoverArgs struct{}

// Kind implements Args.
func (RecoverArgs) Kind() string { return KindRecover }

// KindRerun is a re-run whose delivery names no pull request.
const KindRerun = "verdict.rerun"

// RerunArgs is "Re-run" of Verdict's check run (or suite) on a commit the
// delivery names no PR for: GitHub lists only PRs whose head is that commit
// on a branch of the repository, so a run of an older head or of a fork's
// PR comes without one. The worker finds the open PRs that contain the
// commit and verifies SignOff (the zero Ref: the newest) at each one's
// current head.
type RerunArgs struct {
	Repo
	HeadSHA    string      `json:"head_sha"`
	SignOff    signoff.Ref `json:"signoff_key,omitzero"`
	ActorLogin string      `json:"actor_login"`
	ActorType  string      `json:"actor_type"`
	DeliveryID string      `json:"delivery_id"`
}

// Kind implements Args.
func (RerunArgs) Kind() string { return KindRerun }

// Verify is the verification of PR number that the re-run asks for.
func (a RerunArgs) Verify(number int) VerifyArgs {
	return VerifyArgs{Repo: a.Repo, PR: number, SignOff: a.SignOff, ActorLogin: a.ActorLogin, ActorType: a.ActorType,
		DeliveryID: a.DeliveryID, Action: "rerun", Manual: true}
}
