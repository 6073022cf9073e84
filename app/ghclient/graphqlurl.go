package ghclient

import "strings"

// GraphQLURL is the GraphQL endpoint beside a REST base: /graphql on
// api.github.com (and any host serving REST at its root), /api/graphql on
// a GitHub Enterprise Server whose REST base is /api/v3/.
func GraphQLURL(restBase string) string {
	if b, ok := strings.CutSuffix(restBase, "/api/v3/"); ok {
		return b + "/api/graphql"
	}
	return strings.TrimSuffix(restBase, "/") + "/graphql"
}
