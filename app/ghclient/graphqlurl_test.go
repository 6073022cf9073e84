package ghclient

import "testing"

func TestGraphQLURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.github.com/":         "https://api.github.com/graphql",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/graphql",
		"https://api.acme.ghe.com/":       "https://api.acme.ghe.com/graphql",
		"http://127.0.0.1:8080/":          "http://127.0.0.1:8080/graphql",
	} {
		if got := GraphQLURL(in); got != want {
			t.Errorf("GraphQLURL(%s) = %s, want %s", in, got, want)
		}
	}
}
