// Package jobs defines the units of work the queue runs: one argument type
// per job kind, serialized as JSON into the queue. How a failed job is
// retried is said by the markers of package retry.
package jobs

import (
	"strconv"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Job kinds. They are stored in the queue: never rename one.
const (
	KindVerify   = "verdict.verify"
	KindReuse    = "verdict.reuse"
	KindWelcome  = "verdict.welcome"
	KindWithdraw = "verdict.withdraw"
)

// Args is what every job argument type implements (it is River's JobArgs).
type Args interface {
	Kind() string
}

// Repo identifies a repository and the App installation that may read it.
type Repo struct {
	InstallationID int64  `json:"installation_id"`
	Owner          string `json:"owner"`
	Name           string `json:"repo"`
}

// FullName is owner/repo.
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// PRKey names one pull request, case-folded because GitHub treats owner and
// repository names case-insensitively. Per-PR serialization locks on it.
func PRKey(r Repo, pr int) string {
	return strings.ToLower(r.FullName()) + "#" + strconv.Itoa(pr)
}

// VerifyArgs asks for one verification of one sign-off.
type VerifyArgs struct {
	Repo
	PR int `json:"pr"`
	// SignOff is the sign-off to verify, stored as its key
	// (issuecomment-<id>, pullrequestreview-<id> or discussion_r<id>). The
	// zero Ref means "the newest sign-off on the PR" (a maintainer's
	// /verdict recheck).
	SignOff signoff.Ref `json:"signoff_key,omitzero"`
	// ActorLogin/ActorType are the event's sender (for edits, the editor):
	// the verifier authorizes the trigger through the API (gate f).
	ActorLogin string `json:"actor_login"`
	ActorType  string `json:"actor_type"`
	DeliveryID string `json:"delivery_id"`
	// Delivered is the body the delivery carried: the sender is its
	// editor only while it is still the body read (created, edited and
	// submitted deliveries; zero for commands).
	Delivered signoff.Stamp `json:"delivered,omitzero"`
	// Action is the webhook action that caused the job ("created",
	// "edited", "submitted"; "recheck" for a maintainer command).
	Action string `json:"action"`
	// Manual is set for explicit re-verification, which bypasses the
	// open/non-draft gate (d) but nothing else.
	Manual bool `json:"manual,omitempty"`
	// Generation is filled in by the queue when the job is enqueued: a job
	// whose generation is below the sign-off's current one has been
	// superseded by a newer event for the same sign-off and is skipped.
	Generation int64 `json:"generation,omitempty"`
}

// Kind implements Args.
func (VerifyArgs) Kind() string { return KindVerify }

// CoalesceKey groups the events that a single verification answers: the same
// sign-off on the same PR (or "newest" for a recheck).
func (a VerifyArgs) CoalesceKey() string {
	k := a.SignOff.Key()
	if k == "" {
		k = "newest"
	}
	return PRKey(a.Repo, a.PR) + "/" + k
}

// WithdrawArgs asks for the withdrawal of one sign-off: its comment was
// deleted or its review dismissed.
type WithdrawArgs struct {
	Repo
	PR      int         `json:"pr"`
	SignOff signoff.Ref `json:"signoff_key"`
	// How is "deleted" or "dismissed".
	How string `json:"how"`
	// ActorLogin is the delivery's sender: who deleted or dismissed it.
	ActorLogin string `json:"actor_login"`
	DeliveryID string `json:"delivery_id"`
	// Generation is filled in by the queue, as for VerifyArgs: it shares
	// the sign-off's coalescing key, so verifications of the sign-off
	// still waiting are superseded by its withdrawal.
	Generation int64 `json:"generation,omitempty"`
}

// Kind implements Args.
func (WithdrawArgs) Kind() string { return KindWithdraw }

// CoalesceKey is the sign-off's key, as its verifications use.
func (a WithdrawArgs) CoalesceKey() string {
	return VerifyArgs{Repo: a.Repo, PR: a.PR, SignOff: a.SignOff}.CoalesceKey()
}

// ReuseArgs asks the reuse acknowledger to react to one comment that may
// hold a /reuse-sweep-run or /use command.
type ReuseArgs struct {
	Repo
	PR        int   `json:"pr"`
	CommentID int64 `json:"comment_id"`
	// Action is created, edited or deleted.
	Action string `json:"action"`
	// Body and UpdatedAt are what the payload carried; the acknowledger
	// re-fetches the comment and can tell if it changed since.
	Body      string    `json:"body"`
	UpdatedAt time.Time `json:"updated_at"`
	// PreviousBody is changes.body.from for edits (empty otherwise).
	PreviousBody string `json:"previous_body,omitempty"`
	// AuthorLogin/AuthorAssociation describe the comment's author: reuse
	// commands are authorized by association
	// (checks/inferencex/RULES.md, "Reuse commands").
	AuthorLogin       string `json:"author_login"`
	AuthorAssociation string `json:"author_association"`
	DeliveryID        string `json:"delivery_id"`
}

// Kind implements Args.
func (ReuseArgs) Kind() string { return KindReuse }

// WelcomeArgs asks for the welcome / recipe-reminder comment. The welcomer
// decides from the PR's files whether it applies.
type WelcomeArgs struct {
	Repo
	PR      int    `json:"pr"`
	Action  string `json:"action"`
	HeadSHA string `json:"head_sha,omitempty"`
	// AuthorLogin is the PR's author.
	AuthorLogin string `json:"author_login"`
	DeliveryID  string `json:"delivery_id"`
}

// Kind implements Args.
func (WelcomeArgs) Kind() string { return KindWelcome }

// Attempt says which try of a job is running. The queue counts an attempt
// when it starts one; waiting for a busy PR, a rate limit or a restart
// spends none.
type Attempt struct {
	Number int // 1 for the first try
	Max    int
	// AssessBy is when the verification must have decided its verdict
	// (zero: no bound of its own). Publishing a verdict decided in time
	// may go on after it, so a cut attempt never leaves half a verdict.
	AssessBy time.Time
}

// Retry reports whether an earlier attempt ran and failed or died, so its
// effects on GitHub may be there already.
func (a Attempt) Retry() bool { return a.Number > 1 }
