package ghapi

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"
)

// maxRefPages bounds a matching-refs listing (100 refs a page).
const maxRefPages = 20

// MatchingRefs lists the references whose name starts with prefix
// ("heads/gh-readonly-queue/main/"), every page.
func (c *Client) MatchingRefs(ctx context.Context, owner, repo, prefix string) ([]*github.Reference, error) {
	var out []*github.Reference
	opts := &github.ReferenceListOptions{Ref: prefix, ListOptions: github.ListOptions{PerPage: perPage}}
	for pages := 0; ; pages++ {
		if pages == maxRefPages {
			return nil, fmt.Errorf("listing refs %s of %s/%s: more than %d pages", prefix, owner, repo, maxRefPages)
		}
		refs, resp, err := c.gh.Git.ListMatchingRefs(ctx, owner, repo, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}
