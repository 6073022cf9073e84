package router

import (
	"strings"

	"github.com/verdict-bot/verdict/app/jobs"
)

// mergeGroup is the merge_group payload's group.
type mergeGroup struct {
	HeadSHA string `json:"head_sha"`
	HeadRef string `json:"head_ref"`
	BaseSHA string `json:"base_sha"`
	BaseRef string `json:"base_ref"`
}

// mergeGroupEvent handles a merge queue's merge_group: checks_requested asks
// for Verdict's check on the group's commit, destroyed withdraws the group.
// Shapes are checked here because the refs and SHAs reach API paths.
func (r Router) mergeGroupEvent(d *Decision, p *payload) {
	g := p.MergeGroup
	if g == nil || !shaRE.MatchString(g.HeadSHA) || !shaRE.MatchString(g.BaseSHA) ||
		!strings.HasPrefix(g.HeadRef, "refs/heads/gh-readonly-queue/") || !strings.HasPrefix(g.BaseRef, "refs/heads/") ||
		strings.ContainsAny(g.HeadRef+g.BaseRef, " \t\n?#\\") {
		return
	}
	d.HeadSHA = g.HeadSHA
	d.Jobs = append(d.Jobs, jobs.MergeGroupArgs{Repo: d.Repo, Action: p.Action, HeadSHA: g.HeadSHA, HeadRef: g.HeadRef,
		BaseSHA: g.BaseSHA, BaseRef: g.BaseRef, DeliveryID: d.DeliveryID})
}
