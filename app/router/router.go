// Package router turns a webhook delivery into the jobs it calls for: a
// verification of a sign-off, a reuse-command acknowledgement, a
// maintainer's /verdict recheck, or the welcome reminder. It is pure: no
// I/O, no authorization beyond cheap pre-filters; the workers authorize
// through the API.
//
// Every event Verdict acts on is one entry of the events table: its name
// and the function that makes jobs of a delivery. Intake answers any other
// event without storing it, and the App subscribes to exactly the events
// the table lists (a test compares it with deploy/app-manifest.yml).
package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// ErrMalformed is returned for a payload that is not JSON or lacks the
// fields every handled event has.
var ErrMalformed = errors.New("malformed payload")

// Router routes deliveries. The zero value uses signoff.DefaultPhrase.
type Router struct {
	// Phrase makes a comment a sign-off candidate (case-sensitive substring).
	Phrase string
	// AppSlug is the App's slug; its bot account "<slug>[bot]" is ignored
	// (so is every other bot).
	AppSlug string
	// AppID is the App's ID: a re-run of a check run or suite is acted on
	// only when the run's App is this one (by ID when it is known, else by
	// slug).
	AppID int64
	// RecheckAssociations may use /verdict recheck before the verifier
	// checks the actor's permission; default OWNER, MEMBER, COLLABORATOR
	// (anyone with write access has one of them).
	RecheckAssociations []string
}

// Decision is what a delivery asks for.
type Decision struct {
	Event, Action string
	DeliveryID    string
	// Unhandled is set for an event not in the table, or an action of it
	// Verdict never acts on (Acts): nothing needs storing.
	Unhandled bool
	Repo      jobs.Repo
	PR        int
	HeadSHA   string // when the payload carries it
	Sender    string
	// IgnoredSender is set for the App itself and other bots: nothing is
	// enqueued and nothing needs storing.
	IgnoredSender bool
	Jobs          []jobs.Args
	// Refused says why a command the delivery carries was not obeyed, one
	// reason per command, for the log.
	Refused []string
}

// route makes the jobs of one delivery of an event, whose common fields
// (repository, PR number, sender) d already holds.
type route func(r Router, d *Decision, p *payload)

// events is every webhook event Verdict acts on. Adding one is one entry
// here (and the event in deploy/app-manifest.yml).
var events = map[string]route{
	"issue_comment":               Router.issueComment,
	"pull_request_review":         Router.review,
	"pull_request_review_comment": Router.reviewComment,
	"pull_request":                Router.pullRequest,
	"check_run":                   Router.checkRun,
	"check_suite":                 Router.checkSuite,
	"merge_group":                 Router.mergeGroupEvent,
}

// Handles lists the webhook events that may produce jobs, sorted; the App
// subscribes to exactly these.
func Handles() []string {
	names := make([]string, 0, len(events))
	for name := range events {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// The identifiers that reach URLs and logs must have the shapes GitHub
// gives them; anything else did not come from GitHub and is dropped.
var (
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	loginRE    = regexp.MustCompile(`^[A-Za-z0-9-]+(\[bot\])?$`)
)

// Route decides what the delivery of event with body calls for. Only an
// unparsable payload is an error; anything irrelevant yields no jobs.
func (r Router) Route(event, deliveryID string, body []byte) (Decision, error) {
	d := Decision{Event: event, DeliveryID: deliveryID}
	handle, ok := events[event]
	if !ok {
		d.Unhandled = true
		return d, nil
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return d, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if p.Repository == nil || p.Repository.FullName == "" {
		return d, fmt.Errorf("%w: %s event without repository.full_name", ErrMalformed, event)
	}
	d.Action = p.Action
	if !Acts(event, p.Action) {
		d.Unhandled = true
		return d, nil
	}
	d.Sender = p.Sender.Login
	owner, name, _ := strings.Cut(p.Repository.FullName, "/")
	d.Repo = jobs.Repo{Owner: owner, Name: name}
	if p.Installation != nil {
		d.Repo.InstallationID = p.Installation.ID
	}
	switch {
	case p.PullRequest != nil:
		d.PR = p.PullRequest.Number
		d.HeadSHA = p.PullRequest.Head.SHA
	case p.Issue != nil:
		d.PR = p.Issue.Number
	case p.CheckRun != nil || p.CheckSuite != nil:
		d.PR, d.HeadSHA = checkPR(&p)
	}
	if d.PR == 0 {
		d.PR = p.Number
	}
	bot := r.isBot(p.Sender)
	// A push moves the head whoever pushed, a bot included; a merge queue
	// asks for checks whoever queued (often GitHub's own bot).
	push := event == "pull_request" && p.Action == "synchronize"
	queue := event == "merge_group"
	if bot && !withdrawal(p.Action) && !push && !queue {
		d.IgnoredSender = true
		return d, nil
	}
	// A re-run may name no PR (a fork's, or an older head's): its job
	// finds them; a merge group's job finds its PRs from its refs.
	rerun := p.CheckRun != nil || p.CheckSuite != nil
	if !repoNameRE.MatchString(p.Repository.FullName) || (d.PR <= 0 && !rerun && !queue) {
		return d, nil
	}
	handle(r, &d, &p)
	if bot && !push && !queue {
		// A bot deleting a sign-off still withdraws it; nothing else a
		// bot does counts.
		d.Jobs = slices.DeleteFunc(d.Jobs, func(a jobs.Args) bool { _, ok := a.(jobs.WithdrawArgs); return !ok })
		d.IgnoredSender = len(d.Jobs) == 0
	}
	return d, nil
}

func (r Router) isBot(u user) bool {
	if u.Type == "Bot" || strings.HasSuffix(strings.ToLower(u.Login), "[bot]") {
		return true
	}
	return r.AppSlug != "" && strings.EqualFold(u.Login, r.AppSlug)
}

func (r Router) phrase() string {
	if r.Phrase == "" {
		return signoff.DefaultPhrase
	}
	return r.Phrase
}

// withdrawal reports an action that takes a sign-off back.
func withdrawal(action string) bool { return action == "deleted" || action == "dismissed" }

func (r Router) review(d *Decision, p *payload) {
	if p.Review == nil {
		return
	}
	ref := signoff.Ref{Kind: checks.KindReview, ID: p.Review.ID}
	switch p.Action {
	case "submitted", "edited":
		r.signOff(d, p, ref, p.Review.User, deref(p.Review.Body), time.Time{})
	case "dismissed":
		r.withdraw(d, p, ref, p.Review.User, deref(p.Review.Body))
	}
}

func (r Router) reviewComment(d *Decision, p *payload) {
	if p.Comment == nil {
		return
	}
	ref := signoff.Ref{Kind: checks.KindInline, ID: p.Comment.ID}
	switch p.Action {
	case "created", "edited":
		r.signOff(d, p, ref, p.Comment.User, deref(p.Comment.Body), p.Comment.UpdatedAt)
	case "deleted":
		r.withdraw(d, p, ref, p.Comment.User, deref(p.Comment.Body))
	}
}

func (r Router) pullRequest(d *Decision, p *payload) {
	switch p.Action {
	case "opened", "reopened", "ready_for_review", "review_requested":
		w := jobs.WelcomeArgs{Repo: d.Repo, PR: d.PR, Action: p.Action, HeadSHA: d.HeadSHA, DeliveryID: d.DeliveryID}
		if p.PullRequest != nil {
			w.AuthorLogin = p.PullRequest.User.Login
		}
		d.Jobs = append(d.Jobs, w)
	case "synchronize":
		r.headMoved(d, p)
	}
}

func (r Router) issueComment(d *Decision, p *payload) {
	// Only PR conversation comments count: an issue's comments are not
	// sign-offs, and reuse commands are about a PR's sweep.
	if p.Issue == nil || p.Issue.PullRequest == nil || p.Comment == nil || p.Comment.ID <= 0 {
		return
	}
	body := deref(p.Comment.Body)
	var before string
	if p.Changes != nil && p.Changes.Body != nil {
		before = deref(p.Changes.Body.From)
	}
	switch p.Action {
	case "created", "edited":
		r.signOff(d, p, signoff.Ref{Kind: checks.KindConversation, ID: p.Comment.ID}, p.Comment.User, body, p.Comment.UpdatedAt)
		r.recheck(d, p, body, before)
	case "deleted":
		r.withdraw(d, p, signoff.Ref{Kind: checks.KindConversation, ID: p.Comment.ID}, p.Comment.User, body)
	}
	switch p.Action {
	case "created", "edited", "deleted":
		if commands.HasReuseLine(body) || commands.HasReuseLine(before) {
			d.Jobs = append(d.Jobs, jobs.ReuseArgs{
				Repo: d.Repo, PR: d.PR, CommentID: p.Comment.ID, Action: p.Action,
				Body: body, UpdatedAt: p.Comment.UpdatedAt, PreviousBody: before,
				AuthorLogin: p.Comment.User.Login, AuthorAssociation: p.Comment.AuthorAssociation,
				DeliveryID: d.DeliveryID,
			})
		}
	}
}

// signOff enqueues a verification when body is a sign-off candidate whose
// author and id pass the sanity gate. A bot's comment is no sign-off,
// whoever edits it. An edit that removed the phrase is ignored: the
// existing verdict stays until the sign-off is verified again. The job
// carries a stamp of the body delivered, since the sender is the editor of
// that body only.
func (r Router) signOff(d *Decision, p *payload, ref signoff.Ref, author user, body string, updatedAt time.Time) {
	if ref.ID <= 0 || !loginRE.MatchString(author.Login) || r.isBot(author) || !signoff.IsCandidate(body, r.phrase()) {
		return
	}
	d.Jobs = append(d.Jobs, jobs.VerifyArgs{
		Repo: d.Repo, PR: d.PR, SignOff: ref,
		ActorLogin: p.Sender.Login, ActorType: p.Sender.Type,
		DeliveryID: d.DeliveryID, Action: p.Action,
		Delivered: signoff.StampOf(body, updatedAt),
	})
}

// withdraw enqueues the withdrawal of a sign-off candidate that was deleted
// or dismissed; the worker reads it again before acting.
func (r Router) withdraw(d *Decision, p *payload, ref signoff.Ref, author user, body string) {
	if ref.ID <= 0 || !loginRE.MatchString(author.Login) || r.isBot(author) || !signoff.IsCandidate(body, r.phrase()) {
		return
	}
	how := "deleted"
	if p.Action == "dismissed" {
		how = "dismissed"
	}
	d.Jobs = append(d.Jobs, jobs.WithdrawArgs{
		Repo: d.Repo, PR: d.PR, SignOff: ref, How: how,
		ActorLogin: p.Sender.Login, DeliveryID: d.DeliveryID,
	})
}

// recheck handles "/verdict recheck [<sign-off URL>]" from a maintainer: a
// manual verification of the named sign-off, or of the newest one.
func (r Router) recheck(d *Decision, p *payload, body, before string) {
	assoc := r.RecheckAssociations
	if assoc == nil {
		assoc = []string{"OWNER", "MEMBER", "COLLABORATOR"}
	}
	cmd, perr := commands.ParseVerdict(body)
	if perr != commands.OK || cmd.Action != commands.ActionRecheck {
		return
	}
	if !commands.AssociationAllowed(p.Comment.AuthorAssociation, assoc) {
		d.Refused = append(d.Refused, fmt.Sprintf("/verdict recheck by %s: author association %s is not one of %s",
			p.Comment.User.Login, p.Comment.AuthorAssociation, strings.Join(assoc, ", ")))
		return
	}
	// Editing a comment that already asked for a recheck is not a new ask.
	if prev, err := commands.ParseVerdict(before); p.Action == "edited" && err == commands.OK && prev.Action == commands.ActionRecheck {
		return
	}
	a := jobs.VerifyArgs{
		Repo: d.Repo, PR: d.PR,
		ActorLogin: p.Sender.Login, ActorType: p.Sender.Type,
		DeliveryID: d.DeliveryID, Action: "recheck", Manual: true,
	}
	if cmd.Target != "" {
		// The URL must name this repository and this PR; the verifier
		// still checks the fetched object's issue or PR URL, since comment
		// IDs are repository-wide.
		l, ok := signoff.ParseURL(cmd.Target)
		if !ok || !l.Names(d.Repo.Owner, d.Repo.Name, d.PR) {
			d.Refused = append(d.Refused, "/verdict recheck by "+p.Comment.User.Login+": the URL does not name a sign-off of this PR")
			return
		}
		a.SignOff = l.Ref
	}
	d.Jobs = append(d.Jobs, a)
}
