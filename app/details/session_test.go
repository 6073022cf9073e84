package details

import (
	"strings"
	"testing"
)

func TestCookieSeal(t *testing.T) {
	s := newSigner("secret")
	v, err := s.seal(sessionCookie, session{Login: "reader", Repos: []string{"acme/secret"}, Expires: 99})
	if err != nil {
		t.Fatal(err)
	}
	var got session
	if err := s.open(sessionCookie, v, &got); err != nil || got.Login != "reader" || !got.canRead("ACME/secret") {
		t.Fatalf("open = %+v, %v", got, err)
	}
	for name, bad := range map[string]func() error{
		"other purpose": func() error { return s.open(loginCookie, v, &got) },
		"other key":     func() error { return newSigner("other").open(sessionCookie, v, &got) },
		"altered":       func() error { return s.open(sessionCookie, "e"+v, &got) },
		"unsigned":      func() error { return s.open(sessionCookie, strings.Split(v, ".")[0], &got) },
	} {
		if bad() == nil {
			t.Errorf("%s cookie opened", name)
		}
	}
}

// FuzzOpenCookie: whatever a browser sends, opening never panics and only
// a value this signer sealed opens.
func FuzzOpenCookie(f *testing.F) {
	s := newSigner("secret")
	good, _ := s.seal(sessionCookie, session{Login: "a", Expires: 1})
	f.Add(good)
	f.Add("")
	f.Add(".")
	f.Add("e30.AAAA")
	f.Fuzz(func(t *testing.T, v string) {
		var got session
		// Only the one sealed session may open (base64 may spell it
		// differently); anything else would be a forged MAC.
		if s.open(sessionCookie, v, &got) == nil && (got.Login != "a" || got.Expires != 1 || got.Repos != nil) {
			t.Fatalf("%q opened as %+v", v, got)
		}
	})
}
