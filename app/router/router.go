// Package router turns a webhook delivery into the jobs it calls for: a
// verification of a sign-off (§1.1-1.3b), a reuse-command acknowledgement
// (§3.1-3.2), a maintainer's /verdict recheck, or the welcome reminder
// (§2.7). It is pure: no I/O, no authorization beyond cheap pre-filters —
// the workers authorize through the API.
package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/checks/format/commands"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// DefaultPhrase is the sign-off phrase of the InferenceX preset.
const DefaultPhrase = "As a PR reviewer and CODEOWNER"

// ErrMalformed is returned for a payload that is not JSON or lacks the
// fields every handled event has.
var ErrMalformed = errors.New("malformed payload")

// Router routes deliveries. The zero value uses DefaultPhrase.
type Router struct {
	// Phrase makes a comment a sign-off candidate (case-sensitive substring).
	Phrase string
	// AppSlug is the App's slug; its bot account "<slug>[bot]" is ignored
	// (so is every other bot).
	AppSlug string
	// RecheckAssociations may use /verdict recheck before the API check of
	// gate f; default OWNER, MEMBER, COLLABORATOR (anyone with write access
	// has one of them).
	RecheckAssociations []string
}

// Decision is what a delivery asks for.
type Decision struct {
	Event, Action string
	Repo          jobs.Repo
	PR            int
	HeadSHA       string // when the payload carries it
	Sender        string
	// IgnoredSender is set for the App itself and other bots: nothing is
	// enqueued and nothing needs storing.
	IgnoredSender bool
	Jobs          []jobs.Args
}

// Handles reports whether event may produce jobs; other events are answered
// without being stored.
func Handles(event string) bool {
	switch event {
	case "issue_comment", "pull_request_review", "pull_request_review_comment", "pull_request":
		return true
	}
	return false
}

var (
	// §1.3b sanity gate.
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	loginRE    = regexp.MustCompile(`^[A-Za-z0-9-]+(\[bot\])?$`)
	// §1.4 sign-off URL.
	signOffURLRE = regexp.MustCompile(`(?i)^https://github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/pull/([1-9][0-9]*)(?:/files)?#(issuecomment-|pullrequestreview-|discussion_r)([1-9][0-9]*)$`)
)

// Route decides what the delivery of event with body calls for. Only an
// unparsable payload is an error; anything irrelevant yields no jobs.
func (r Router) Route(event, deliveryID string, body []byte) (Decision, error) {
	d := Decision{Event: event}
	if !Handles(event) {
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
	}
	if d.PR == 0 {
		d.PR = p.Number
	}
	if r.isBot(p.Sender) {
		d.IgnoredSender = true
		return d, nil
	}
	// §1.3b: names and ids that could not come from GitHub are dropped
	// before anything is queued.
	if !repoNameRE.MatchString(p.Repository.FullName) || d.PR <= 0 {
		return d, nil
	}
	switch event {
	case "issue_comment":
		r.issueComment(&d, &p, deliveryID)
	case "pull_request_review":
		if p.Review != nil && (p.Action == "submitted" || p.Action == "edited") {
			r.signOff(&d, &p, deliveryID, "pullrequestreview-", jobs.SignOffReview, p.Review.ID, p.Review.User.Login, deref(p.Review.Body))
		}
	case "pull_request_review_comment":
		if p.Comment != nil && (p.Action == "created" || p.Action == "edited") {
			r.signOff(&d, &p, deliveryID, "discussion_r", jobs.SignOffInline, p.Comment.ID, p.Comment.User.Login, deref(p.Comment.Body))
		}
	case "pull_request":
		switch p.Action {
		case "opened", "reopened", "ready_for_review", "review_requested":
			w := jobs.WelcomeArgs{Repo: d.Repo, PR: d.PR, Action: p.Action, HeadSHA: d.HeadSHA, DeliveryID: deliveryID}
			if p.PullRequest != nil {
				w.AuthorLogin = p.PullRequest.User.Login
			}
			d.Jobs = append(d.Jobs, w)
		}
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
		return DefaultPhrase
	}
	return r.Phrase
}

func (r Router) issueComment(d *Decision, p *payload, deliveryID string) {
	// Only PR conversation comments count (§1.1, §3.1).
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
		r.signOff(d, p, deliveryID, "issuecomment-", jobs.SignOffConversation, p.Comment.ID, p.Comment.User.Login, body)
		r.recheck(d, p, deliveryID, body, before)
		fallthrough
	case "deleted":
		if commands.HasReuseLine(body) || commands.HasReuseLine(before) {
			d.Jobs = append(d.Jobs, jobs.ReuseArgs{
				Repo: d.Repo, PR: d.PR, CommentID: p.Comment.ID, Action: p.Action,
				Body: body, UpdatedAt: p.Comment.UpdatedAt, PreviousBody: before,
				AuthorLogin: p.Comment.User.Login, AuthorAssociation: p.Comment.AuthorAssociation,
				DeliveryID: deliveryID,
			})
		}
	}
}

// signOff enqueues a verification when body is a sign-off candidate whose
// author and id pass the sanity gate. An edit that removed the phrase is
// ignored: the existing verdict stays (§1.2).
func (r Router) signOff(d *Decision, p *payload, deliveryID, prefix, kind string, id int64, author, body string) {
	if id <= 0 || !loginRE.MatchString(author) || !signoff.IsCandidate(body, r.phrase()) {
		return
	}
	d.Jobs = append(d.Jobs, jobs.VerifyArgs{
		Repo: d.Repo, PR: d.PR,
		SignOffKey: prefix + strconv.FormatInt(id, 10), SignOffKind: kind,
		ActorLogin: p.Sender.Login, ActorType: p.Sender.Type,
		DeliveryID: deliveryID, Action: p.Action,
	})
}

// recheck handles "/verdict recheck [<sign-off URL>]" from a maintainer: a
// manual verification of the named sign-off, or of the newest one.
func (r Router) recheck(d *Decision, p *payload, deliveryID, body, before string) {
	assoc := r.RecheckAssociations
	if assoc == nil {
		assoc = []string{"OWNER", "MEMBER", "COLLABORATOR"}
	}
	if !containsFold(assoc, p.Comment.AuthorAssociation) {
		return
	}
	cmd, perr := commands.ParseVerdict(body)
	if perr != commands.OK || cmd.Action != commands.ActionRecheck {
		return
	}
	// Editing a comment that already asked for a recheck is not a new ask.
	if prev, err := commands.ParseVerdict(before); p.Action == "edited" && err == commands.OK && prev.Action == commands.ActionRecheck {
		return
	}
	a := jobs.VerifyArgs{
		Repo: d.Repo, PR: d.PR,
		ActorLogin: p.Sender.Login, ActorType: p.Sender.Type,
		DeliveryID: deliveryID, Action: "recheck", Manual: true,
	}
	if cmd.Target != "" {
		u := signOffURLRE.FindStringSubmatch(cmd.Target)
		// The URL must name this repository and this PR (§1.4); the
		// verifier still checks the fetched object's issue/PR URL.
		if u == nil || !strings.EqualFold(u[1]+"/"+u[2], d.Repo.FullName()) || u[3] != strconv.Itoa(d.PR) {
			return
		}
		a.SignOffKey = strings.ToLower(u[4]) + u[5]
		switch a.SignOffKey[0] {
		case 'i':
			a.SignOffKind = jobs.SignOffConversation
		case 'p':
			a.SignOffKind = jobs.SignOffReview
		default:
			a.SignOffKind = jobs.SignOffInline
		}
	}
	d.Jobs = append(d.Jobs, a)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
