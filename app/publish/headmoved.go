package publish

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/app/repoconfig"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// HeadMove is a push to a PR: its head is now Head, which no earlier
// verdict assessed.
type HeadMove struct {
	Client      GitHub
	Config      repoconfig.Config
	Owner, Repo string
	Number      int
	Head        string
	// NeedsSignOff says whether Head needs a sign-off (the scope gate);
	// only then is the sign-off-needed status posted. It is asked only for a
	// PR with a verdict whose head no verdict covers, so most pushes never
	// pay for it; nil means yes.
	NeedsSignOff func(context.Context) (bool, error)
}

// HeadMoved is what marking a push changed.
type HeadMoved struct {
	// Verdicts are the PR's verdict comments of ours; Edited how many got a
	// new line (or lost it, when the head came back to their commit).
	Verdicts, Edited int
	// Covered is the commit the last verdict covered ("" with no verdict).
	Covered string
	// Status is the state posted on Head, "" when none was.
	Status string
}

// verdictMarkerPrefix starts every verdict comment's marker.
var verdictMarkerPrefix = strings.TrimSuffix(render.Marker("KEY"), "KEY -->")

// HeadMoved marks a pushed PR that has had a verdict: each verdict comment
// of ours gets (or has updated) its one line saying which commit it covers
// and that the head has moved, edited in place; and, when no verdict covers
// the new head and it needs a sign-off, the head gets the status "sign-off needed:
// the last verdict covered <sha7>" in the configured state (status.on_push),
// linked to that verdict. The last verdict is that of the newest sign-off
// (the newest verdict comment). A PR without a verdict is left alone.
// Running it twice changes nothing the second time.
func (v Verdicts) HeadMoved(ctx context.Context, m HeadMove) (HeadMoved, error) {
	var res HeadMoved
	pub := FromConfig(m.Client, m.Config)
	switch {
	case m.Owner == "" || m.Repo == "" || m.Number <= 0:
		return res, fmt.Errorf("publish: invalid target %s/%s#%d", m.Owner, m.Repo, m.Number)
	case !shaRE.MatchString(m.Head):
		return res, fmt.Errorf("publish: invalid head %q: want 40 lowercase hex digits", m.Head)
	}
	// No identity to recognise our verdicts by would mark nothing, silently.
	if err := pub.checkIdentity(""); err != nil {
		return res, err
	}
	type verdict struct {
		id        int64
		url, body string
		assessed  string
	}
	var found []verdict
	err := pub.eachComment(ctx, m.Owner, m.Repo, m.Number, func(c *github.IssueComment) bool {
		body := c.GetBody()
		if !pub.isBot(c.GetUser().GetLogin()) || !strings.HasPrefix(body, verdictMarkerPrefix) {
			return true
		}
		key, _, _ := strings.Cut(strings.TrimPrefix(body, verdictMarkerPrefix), " ")
		sha, ok := render.AssessedCommit(body)
		// A withdrawn sign-off's notice quotes its verdict but covers nothing.
		if !signoff.ValidKey(key) || !strings.HasPrefix(body, render.Marker(key)+"\n") || !ok || render.IsWithdrawn(body) {
			return true
		}
		found = append(found, verdict{id: c.GetID(), url: c.GetHTMLURL(), body: body, assessed: sha})
		return true
	})
	if err != nil {
		return res, err
	}
	res.Verdicts = len(found)
	if len(found) == 0 {
		return res, nil
	}
	covered := false
	for _, f := range found {
		line := ""
		if f.assessed == m.Head {
			covered = true
		} else if line, err = render.HeadMovedLine(f.assessed, m.Head); err != nil {
			return res, err
		}
		body := render.WithHeadMoved(f.body, line)
		if body == f.body {
			continue
		}
		if n := utf8.RuneCountInString(body); n > maxCommentChars {
			v.logger(Target{Owner: m.Owner, Repo: m.Repo, Number: m.Number, HeadSHA: m.Head}).Warn(
				"verdict comment too long for the head-moved line; left as it is", "comment_id", f.id)
			continue
		}
		// Setting a comment to a given body twice changes nothing: retryable.
		_, err := m.Client.EditIssueComment(ghclient.Repeatable(ctx), m.Owner, m.Repo, f.id, body)
		if isNotFound(err) {
			continue // deleted meanwhile: nothing left to mark
		}
		if err != nil {
			return res, fmt.Errorf("marking verdict comment %d on %s/%s#%d: %w", f.id, m.Owner, m.Repo, m.Number, err)
		}
		res.Edited++
	}
	last := found[len(found)-1]
	res.Covered = last.assessed
	// A head some verdict assessed has that verdict's status already.
	if covered || !pub.StatusEnabled {
		return res, nil
	}
	if m.NeedsSignOff != nil {
		need, err := m.NeedsSignOff(ctx)
		if err != nil {
			return res, err
		}
		if !need {
			return res, nil
		}
	}
	desc, err := render.SignOffNeededStatus(last.assessed)
	if err != nil {
		return res, err
	}
	state := m.Config.Status.OnPush
	if state != "failure" {
		state = "pending"
	}
	desc = clip(desc, 140)
	// The same push marked twice (a new delivery of it) posts once.
	sts, err := m.Client.Statuses(ctx, m.Owner, m.Repo, m.Head)
	if err != nil {
		return res, fmt.Errorf("reading the statuses of %s/%s@%s: %w", m.Owner, m.Repo, m.Head, err)
	}
	for _, st := range sts {
		if st.GetContext() == pub.statusContext() {
			if st.GetState() == state && st.GetDescription() == desc && st.GetTargetURL() == last.url {
				res.Status = state
				return res, nil
			}
			break
		}
	}
	if err := pub.status(ctx, Handle{Owner: m.Owner, Repo: m.Repo, SHA: m.Head}, state, desc, last.url); err != nil {
		return res, err
	}
	res.Status = state
	return res, nil
}
