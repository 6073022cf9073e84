package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/render"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// Action says what an upsert did to the conversation.
type Action string

const (
	Created   Action = "created"   // no comment of ours existed; one was posted
	Updated   Action = "updated"   // our comment was edited in place
	Unchanged Action = "unchanged" // our comment already had this body
	Recreated Action = "recreated" // our comment vanished during the edit; posted anew
	Skipped   Action = "skipped"   // a post-once comment already exists
)

// Published describes the comment a publish call settled on.
type Published struct {
	CommentID  int64
	CommentURL string
	// NodeID is the comment's GraphQL node ID, the handle to hide it by.
	NodeID string
	// ConfigErrorNodeID is the node ID of this App's invalid-configuration
	// notice on the same conversation ("" when there is none), seen while
	// looking for the comment: a verdict means it no longer holds.
	ConfigErrorNodeID string
	Action            Action
	// Wrote reports whether the comment was created or edited.
	Wrote bool
}

// maxCommentPages bounds the listing: 200 pages of 100 is far beyond any
// real PR and keeps a pathological one from looping for ever.
const maxCommentPages = 200

// Upsert makes body the content of this App's comment keyed by marker on
// issue or PR number: a comment is ours iff a
// configured bot login wrote it AND its body starts with marker + "\n". The
// last such comment is edited in place (nothing is written when it already
// has body); with none, a comment is posted; if it was deleted between the
// listing and the edit, a new one is posted. Comments by anyone else that
// merely contain the marker, and comments with other markers, are never
// touched.
func (p *Publisher) Upsert(ctx context.Context, owner, repo string, number int, marker, body string) (Published, error) {
	if err := p.checkCommentArgs(owner, repo, number, marker, body); err != nil {
		return Published{}, err
	}
	var mine *github.IssueComment
	notice := ""
	err := p.eachComment(ctx, owner, repo, number, func(c *github.IssueComment) bool {
		if !p.isBot(c.GetUser().GetLogin()) {
			return true
		}
		switch {
		case strings.HasPrefix(c.GetBody(), marker+"\n"):
			mine = c
		case strings.HasPrefix(c.GetBody(), render.ConfigErrorMarker+"\n"):
			notice = c.GetNodeID()
		}
		return true
	})
	if err != nil {
		return Published{}, err
	}
	pub, err := p.settle(ctx, owner, repo, number, mine, body)
	pub.ConfigErrorNodeID = notice
	return pub, err
}

// settle makes mine (nil: none yet) the comment with body.
func (p *Publisher) settle(ctx context.Context, owner, repo string, number int, mine *github.IssueComment, body string) (Published, error) {
	if mine == nil {
		return p.create(ctx, owner, repo, number, body, Created)
	}
	if mine.GetBody() == body {
		return Published{CommentID: mine.GetID(), CommentURL: mine.GetHTMLURL(), NodeID: mine.GetNodeID(), Action: Unchanged}, nil
	}
	// Setting a comment to a given body twice changes nothing: retryable.
	edited, err := p.Client.EditIssueComment(ghclient.Repeatable(ctx), owner, repo, mine.GetID(), body)
	if isNotFound(err) {
		return p.create(ctx, owner, repo, number, body, Recreated)
	}
	if err != nil {
		return Published{}, fmt.Errorf("editing comment %d on %s/%s#%d: %w", mine.GetID(), owner, repo, number, err)
	}
	return Published{CommentID: edited.GetID(), CommentURL: edited.GetHTMLURL(), NodeID: edited.GetNodeID(), Action: Updated, Wrote: true}, nil
}

// PostOnce posts body unless any comment on the issue, by anyone, already
// contains marker (the recipe reminder's rule: whoever copied the marker
// meant the reminder to be there), over all pages.
func (p *Publisher) PostOnce(ctx context.Context, owner, repo string, number int, marker, body string) (Published, error) {
	if err := p.checkCommentArgs(owner, repo, number, marker, body); err != nil {
		return Published{}, err
	}
	var found *github.IssueComment
	err := p.eachComment(ctx, owner, repo, number, func(c *github.IssueComment) bool {
		if strings.Contains(c.GetBody(), marker) {
			found = c
			return false
		}
		return true
	})
	if err != nil {
		return Published{}, err
	}
	if found != nil {
		return Published{CommentID: found.GetID(), CommentURL: found.GetHTMLURL(), NodeID: found.GetNodeID(), Action: Skipped}, nil
	}
	return p.create(ctx, owner, repo, number, body, Created)
}

func (p *Publisher) checkCommentArgs(owner, repo string, number int, marker, body string) error {
	if p.Client == nil {
		return errors.New("publish: no GitHub client")
	}
	if owner == "" || repo == "" || number <= 0 {
		return fmt.Errorf("publish: invalid target %s/%s#%d", owner, repo, number)
	}
	if err := p.checkIdentity(""); err != nil {
		return err
	}
	if !strings.HasPrefix(marker, "<!--") || !strings.HasSuffix(marker, "-->") || strings.Contains(marker, "\n") {
		return fmt.Errorf("publish: invalid marker %q", marker)
	}
	if !strings.HasPrefix(body, marker+"\n") {
		return fmt.Errorf("publish: body does not start with its marker %q", marker)
	}
	if n := utf8.RuneCountInString(body); n > maxCommentChars {
		return fmt.Errorf("publish: comment body has %d characters, GitHub accepts at most %d", n, maxCommentChars)
	}
	return nil
}

// checkIdentity refuses to publish without an identity to recognise our
// comments by (every run would post a duplicate) or for an invalid key.
func (p *Publisher) checkIdentity(key string) error {
	if p.Client == nil {
		return errors.New("publish: no GitHub client")
	}
	if len(p.BotLogins) == 0 {
		return errors.New("publish: no bot identities configured")
	}
	if key != "" && !signoff.ValidKey(key) {
		return fmt.Errorf("publish: invalid sign-off key %q", key)
	}
	return nil
}

// maxCommentChars is GitHub's limit on an issue comment body, in characters.
const maxCommentChars = 65536

func (p *Publisher) create(ctx context.Context, owner, repo string, number int, body string, a Action) (Published, error) {
	c, err := p.Client.CreateIssueComment(ctx, owner, repo, number, body)
	if err != nil {
		return Published{}, fmt.Errorf("posting comment on %s/%s#%d: %w", owner, repo, number, err)
	}
	return Published{CommentID: c.GetID(), CommentURL: c.GetHTMLURL(), NodeID: c.GetNodeID(), Action: a, Wrote: true}, nil
}

// eachComment visits every conversation comment in creation order until
// visit returns false.
func (p *Publisher) eachComment(ctx context.Context, owner, repo string, number int, visit func(*github.IssueComment) bool) error {
	for pages, page := 0, 0; ; pages++ {
		if pages == maxCommentPages {
			return fmt.Errorf("listing comments on %s/%s#%d: more than %d pages", owner, repo, number, maxCommentPages)
		}
		cs, next, err := p.Client.IssueComments(ctx, owner, repo, number, page)
		if err != nil {
			return fmt.Errorf("listing comments on %s/%s#%d: %w", owner, repo, number, err)
		}
		for _, c := range cs {
			if !visit(c) {
				return nil
			}
		}
		if next == 0 {
			return nil
		}
		page = next
	}
}

func (p *Publisher) isBot(login string) bool {
	for _, b := range p.BotLogins {
		if login != "" && strings.EqualFold(b, login) {
			return true
		}
	}
	return false
}

func isNotFound(err error) bool {
	var ge *github.ErrorResponse
	return errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusNotFound
}
