package ghclient

import (
	"strings"
	"testing"
)

func FuzzEndpoint(f *testing.F) {
	for _, s := range []string{"/repos/o/r/pulls/1", "/api/v3/repos/o/r/contents/a/b", "/orgs/x/teams/y/memberships/z", "", "/", "//repos//"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := Endpoint(p)
		if !strings.HasPrefix(got, "/") {
			t.Fatalf("Endpoint(%q) = %q, want a leading slash", p, got)
		}
		for _, seg := range strings.Split(got, "/") {
			if seg != "" && numberRE.MatchString(seg) {
				t.Fatalf("Endpoint(%q) = %q keeps a number", p, got)
			}
		}
	})
}
