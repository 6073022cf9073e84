package verify

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checkstest"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// permissionReads is a Source that reports each permission read.
type permissionReads struct {
	*checkstest.Source
	logins chan string
}

func (p permissionReads) Permission(ctx context.Context, login string) (checks.Permission, error) {
	p.logins <- login
	return p.Source.Permission(ctx, login)
}

// TestPrefetchWriters: the permissions read ahead are those of the
// candidates newest would ask about under the default phrase, once each.
func TestPrefetchWriters(t *testing.T) {
	src := permissionReads{&checkstest.Source{}, make(chan string, 10)}
	so := func(author, body string) checks.SignOff { return checks.SignOff{Author: author, Body: body} }
	phrase := signoff.DefaultPhrase
	prefetchWriters(context.Background(), src, []candidate{
		{so: so("owner-a", phrase+"\n- [x] done"), meta: signOffMeta{userType: "User"}},
		{so: so("Owner-A", phrase), meta: signOffMeta{userType: "User"}},
		{so: so("owner-b", "LGTM"), meta: signOffMeta{userType: "User"}},
		{so: so("owner-c", phrase), meta: signOffMeta{userType: "User", dismissed: true}},
		{so: so("helper[bot]", phrase), bot: true, meta: signOffMeta{userType: "Bot"}},
	})
	select {
	case l := <-src.logins:
		if l != "owner-a" {
			t.Errorf("read ahead the permission of %s, want owner-a's", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no permission read ahead")
	}
	select {
	case l := <-src.logins:
		t.Errorf("also read ahead the permission of %s", l)
	case <-time.After(50 * time.Millisecond): // any other read would have started by now
	}
}
