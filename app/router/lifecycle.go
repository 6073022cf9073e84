package router

import (
	"regexp"
	"slices"
	"strings"

	"github.com/verdict-bot/verdict/app/jobs"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// onlyActions restricts events of which Verdict uses a single action. GitHub
// sends every App with the checks permission the created / requested /
// completed events of every check run and suite in the repository (each CI
// job's); those are answered 204 and never stored, and recovery does not
// redeliver them.
var onlyActions = map[string][]string{
	"check_run":   {"rerequested"},
	"check_suite": {"rerequested"},
	"merge_group": {"checks_requested", "destroyed"},
}

// Acts reports whether a delivery of event with action may produce jobs:
// the event is in the table and, where only some actions are used, action
// is one of them. Missed-webhook recovery redelivers only these.
func Acts(event, action string) bool {
	if _, ok := events[event]; !ok {
		return false
	}
	only, restricted := onlyActions[event]
	return !restricted || slices.Contains(only, action)
}

// checkApp is the App that owns a check run or suite.
type checkApp struct {
	ID   int64  `json:"id"`
	Slug string `json:"slug"`
}

// checkPull is one entry of a check run's or suite's pull_requests: the
// open PRs whose head is the checked commit on a branch of the repository
// (a fork's PR, or a PR that moved on, is not listed).
type checkPull struct {
	Number int `json:"number"`
	Base   struct {
		Repo struct {
			ID int64 `json:"id"`
		} `json:"repo"`
	} `json:"base"`
}

type checkRun struct {
	ID           int64       `json:"id"`
	Name         string      `json:"name"`
	HeadSHA      string      `json:"head_sha"`
	ExternalID   *string     `json:"external_id"`
	App          *checkApp   `json:"app"`
	PullRequests []checkPull `json:"pull_requests"`
}

type checkSuite struct {
	ID           int64       `json:"id"`
	HeadSHA      string      `json:"head_sha"`
	App          *checkApp   `json:"app"`
	PullRequests []checkPull `json:"pull_requests"`
}

// checkPulls are the PR numbers of this repository a check run or suite
// names, in payload order, without repeats.
func checkPulls(p *payload) []int {
	var list []checkPull
	switch {
	case p.CheckRun != nil:
		list = p.CheckRun.PullRequests
	case p.CheckSuite != nil:
		list = p.CheckSuite.PullRequests
	}
	var out []int
	for _, pr := range list {
		// A PR of another repository can share the commit (a fork's PR
		// into its own base); only this repository's PRs are ours.
		if pr.Number > 0 && (p.Repository.ID == 0 || pr.Base.Repo.ID == p.Repository.ID) && !slices.Contains(out, pr.Number) {
			out = append(out, pr.Number)
		}
	}
	return out
}

// checkPR is the first PR and the commit of a check run or suite delivery.
func checkPR(p *payload) (int, string) {
	prs := checkPulls(p)
	sha := ""
	if p.CheckRun != nil {
		sha = p.CheckRun.HeadSHA
	} else if p.CheckSuite != nil {
		sha = p.CheckSuite.HeadSHA
	}
	if len(prs) == 0 {
		return 0, sha
	}
	return prs[0], sha
}

// ours reports whether a check run or suite belongs to this App: by its
// ID when that is known, else by its slug. GitHub sends rerequested events
// only to the App that owns the run, but a delivery's payload is checked
// anyway: an installation can reach the webhook of more than one App
// sharing a secret.
func (r Router) ours(app *checkApp) bool {
	switch {
	case r.AppID != 0:
		return app != nil && app.ID == r.AppID
	case r.AppSlug != "":
		return app != nil && strings.EqualFold(app.Slug, r.AppSlug)
	}
	return true
}

// checkRun handles "Re-run" of Verdict's check run: the sign-off its
// external ID (<sign-off key>@<sha>) names is verified again at the PR's
// current head, as an explicit request by whoever asked.
func (r Router) checkRun(d *Decision, p *payload) {
	cr := p.CheckRun
	if cr == nil || cr.ExternalID == nil || !r.ours(cr.App) {
		return
	}
	key, _, ok := strings.Cut(*cr.ExternalID, "@")
	if !ok {
		return
	}
	ref, err := signoff.ParseKey(key)
	if err != nil {
		return
	}
	r.rerun(d, p, ref, cr.HeadSHA)
}

// rerun verifies ref at the current head of the PRs the delivery names, or
// leaves finding them to the job when it names none.
func (r Router) rerun(d *Decision, p *payload, ref signoff.Ref, sha string) {
	a := jobs.RerunArgs{Repo: d.Repo, HeadSHA: sha, SignOff: ref,
		ActorLogin: p.Sender.Login, ActorType: p.Sender.Type, DeliveryID: d.DeliveryID}
	prs := checkPulls(p)
	if len(prs) == 0 {
		if shaRE.MatchString(sha) {
			d.Jobs = append(d.Jobs, a)
		}
		return
	}
	for _, pr := range prs {
		d.Jobs = append(d.Jobs, a.Verify(pr))
	}
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// checkSuite handles "Re-run all checks" of Verdict's suite: a suite's
// payload does not list its check runs, so each PR's newest sign-off is
// verified again, which is what the suite's check run of the current head
// covers.
func (r Router) checkSuite(d *Decision, p *payload) {
	if p.CheckSuite == nil || !r.ours(p.CheckSuite.App) {
		return
	}
	r.rerun(d, p, signoff.Ref{}, p.CheckSuite.HeadSHA)
}

// headMoved handles a push to a PR (synchronize): the job marks the new
// head and the earlier verdicts; it verifies nothing.
func (r Router) headMoved(d *Decision, p *payload) {
	d.Jobs = append(d.Jobs, jobs.HeadMovedArgs{
		Repo: d.Repo, PR: d.PR, Before: p.Before, After: p.After, DeliveryID: d.DeliveryID,
	})
}
