package verify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

var (
	repoNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	loginRE    = regexp.MustCompile(`^[A-Za-z0-9-]+(\[bot\])?$`)
)

// sanityGate: the identifiers that reach URLs and logs have the shapes
// GitHub gives them; anything else did not come from GitHub.
func sanityGate(fullName, author string, number int) error {
	if !repoNameRE.MatchString(fullName) {
		return fmt.Errorf("repository name %q is malformed", fullName)
	}
	if !loginRE.MatchString(author) {
		return fmt.Errorf("sign-off author %q is malformed", author)
	}
	if number <= 0 {
		return fmt.Errorf("PR number %d is not positive", number)
	}
	return nil
}

// actorGate: whoever triggered the verification (the sign-off's author or
// editor, or the maintainer asking for a recheck) must have write access.
// Whether the sign-off's author owns the change is Check 0's question.
func actorGate(ctx context.Context, src checks.Source, actor, actorType string) error {
	if actor == "" {
		return errors.New("no triggering actor")
	}
	if strings.HasSuffix(actor, "[bot]") || actorType == "Bot" {
		return fmt.Errorf("actor %s is a bot", actor)
	}
	p, err := src.Permission(ctx, actor)
	if err != nil {
		return fmt.Errorf("reading %s's permission: %w", actor, err)
	}
	okPerm := p.Permission == "admin" || p.Permission == "write"
	okRole := p.RoleName == "admin" || p.RoleName == "maintain" || p.RoleName == "write"
	if !okPerm || !okRole {
		return fmt.Errorf("actor %s has permission %q role %q, not write", actor, p.Permission, p.RoleName)
	}
	return nil
}
