package publish

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks"
)

// descWithdrawn is the status of a commit whose sign-off was withdrawn and
// for which no other sign-off's verdict stands.
const descWithdrawn = "Sign-off withdrawn - no sign-off's verdict stands for this commit"

// Withdrawal is the publication of a sign-off that was deleted or
// dismissed: Target names it (HeadSHA may be empty: the commit its verdict
// comment assessed is used).
type Withdrawal struct {
	Target
	Author, By, How string
	// StandingFor returns another sign-off's verdict that still stands for
	// a commit, nil when none does (nil func: none).
	StandingFor func(ctx context.Context, sha string) (*Standing, error)
}

// Standing is a sign-off's verdict that the shared status shows.
type Standing struct {
	Key        string
	Overall    checks.Overall
	CommentURL string
}

// Withdrawn says what Withdraw settled on.
type Withdrawn struct {
	CommentURL string // "" when no verdict comment of ours existed
	HeadSHA    string // the commit whose status was set; "" when none was
	Standing   *Standing
}

var footerRE = regexp.MustCompile("(?m)^Assessed commit: `([0-9a-f]{40})`\\.$")

// Withdraw turns the sign-off's verdict comment into the withdrawn notice
// (keeping the earlier verdict as its record) and settles the commit it
// assessed: the status shows the standing verdict, or fails "sign-off
// withdrawn" when there is none; the sign-off's own check run fails, or
// takes the standing verdict's conclusion. Without a verdict comment
// and a known commit nothing is written.
func (v Verdicts) Withdraw(ctx context.Context, w Withdrawal) (Withdrawn, error) {
	p := v.publisher(w.Target)
	if err := p.checkIdentity(w.Key); err != nil {
		return Withdrawn{}, err
	}
	marker := render.Marker(w.Key)
	mine, err := p.verdictComment(ctx, w.Owner, w.Repo, w.Number, w.Key)
	if err != nil {
		return Withdrawn{}, err
	}
	sha := w.HeadSHA
	if mine != nil {
		if m := footerRE.FindStringSubmatch(render.EnglishPart(mine.GetBody())); m != nil && sha == "" {
			sha = m[1]
		}
	}
	if sha == "" {
		return Withdrawn{}, nil
	}
	h := Handle{Owner: w.Owner, Repo: w.Repo, SHA: sha, Key: w.Key}
	if err := p.checkHandle(h); err != nil {
		return Withdrawn{}, err
	}
	res := Withdrawn{HeadSHA: sha}
	if w.StandingFor != nil {
		if res.Standing, err = w.StandingFor(ctx, sha); err != nil {
			return Withdrawn{}, err
		}
	}
	if mine != nil {
		body, err := render.Withdrawn(render.Withdrawal{Key: w.Key, HeadSHA: sha, Author: w.Author, By: w.By, How: w.How}, mine.GetBody())
		if err != nil {
			return Withdrawn{}, fmt.Errorf("rendering the withdrawn verdict of %s: %w", w.Key, err)
		}
		pub, err := p.Upsert(ctx, w.Owner, w.Repo, w.Number, marker, body)
		if err != nil {
			return Withdrawn{}, fmt.Errorf("withdrawing the verdict of %s: %w", w.Key, err)
		}
		res.CommentURL = pub.CommentURL
	}
	var errs []error
	if p.StatusEnabled {
		state, desc, url := "failure", descWithdrawn, res.CommentURL
		if s := res.Standing; s != nil {
			state, desc = p.statusFor(s.Overall)
			url = s.CommentURL
		}
		if err := p.status(ctx, h, state, desc, url); err != nil {
			errs = append(errs, err)
		}
	}
	if p.CheckRunsEnabled {
		if err := p.withdrawCheckRun(ctx, h, res.Standing, res.CommentURL); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return res, fmt.Errorf("settling %s@%s after its withdrawal: %w", w.Key, sha, err)
	}
	return res, nil
}

// withdrawCheckRun fails the withdrawn sign-off's check run. When another
// verdict stands, the run takes that verdict's conclusion instead: runs of
// one name on one commit must agree whichever of them GitHub reads.
func (p *Publisher) withdrawCheckRun(ctx context.Context, h Handle, standing *Standing, url string) error {
	title := "Sign-off withdrawn"
	if standing == nil {
		out := &github.CheckRunOutput{Title: github.String(title), Summary: github.String(descWithdrawn + "."),
			Text: github.String("签核已撤回：没有任何签核的结论对该提交有效。")}
		return p.completeCheckRun(ctx, h, "failure", url, out)
	}
	cr, err := p.findCheckRun(ctx, h)
	if err != nil || cr == nil {
		return err
	}
	h.CheckRunID = cr.GetID()
	out := &github.CheckRunOutput{Title: github.String(title),
		Summary: github.String("Sign-off withdrawn; the verdict of " + standing.Key + " stands for this commit."),
		Text:    github.String("签核已撤回；签核 " + standing.Key + " 的结论对该提交有效。")}
	return p.completeCheckRun(ctx, h, conclusion(standing.Overall), standing.CommentURL, out)
}

// closeOpenRun completes h's check run if one is open (an attempt that
// was cut or superseded left it in progress): with the standing verdict's
// conclusion, or cancelled when none stands. A completed run, or none,
// is left alone.
func (p *Publisher) closeOpenRun(ctx context.Context, h Handle, standing *Standing, title, summary, zh string) error {
	cr, err := p.findCheckRun(ctx, h)
	if err != nil || cr == nil || cr.GetStatus() == "completed" {
		return err
	}
	h.CheckRunID = cr.GetID()
	concl, url := "cancelled", ""
	if standing != nil {
		concl, url = conclusion(standing.Overall), standing.CommentURL
	}
	out := &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary), Text: github.String(zh)}
	return p.completeCheckRun(ctx, h, concl, url, out)
}
