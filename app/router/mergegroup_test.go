package router

import (
	"reflect"
	"testing"

	"github.com/verdict-bot/verdict/app/jobs"
)

func TestRouteMergeGroup(t *testing.T) {
	const head, base = "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"
	group := func(headRef, headSHA string) map[string]any {
		return map[string]any{"head_sha": headSHA, "head_ref": headRef, "base_sha": base, "base_ref": "refs/heads/main"}
	}
	queueBot := map[string]any{"login": "github-merge-queue[bot]", "type": "Bot"}
	ref := "refs/heads/gh-readonly-queue/main/pr-12-" + base
	want := jobs.MergeGroupArgs{Repo: repo, Action: "checks_requested", HeadSHA: head, HeadRef: ref, BaseSHA: base,
		BaseRef: "refs/heads/main", DeliveryID: "d"}
	destroyed := want
	destroyed.Action = "destroyed"
	for _, tc := range []struct {
		name      string
		body      []byte
		unhandled bool
		want      []jobs.Args
	}{
		{"checks requested", ev("checks_requested", map[string]any{"merge_group": group(ref, head)}), false, []jobs.Args{want}},
		{"checks requested by the queue's bot", ev("checks_requested", map[string]any{"merge_group": group(ref, head), "sender": queueBot}),
			false, []jobs.Args{want}},
		{"destroyed", ev("destroyed", map[string]any{"merge_group": group(ref, head), "reason": "dequeued"}), false, []jobs.Args{destroyed}},
		{"an action Verdict does not use", ev("enqueued", map[string]any{"merge_group": group(ref, head)}), true, nil},
		{"a head that is no SHA", ev("checks_requested", map[string]any{"merge_group": group(ref, "HEAD")}), false, nil},
		{"a ref outside the queue", ev("checks_requested", map[string]any{"merge_group": group("refs/heads/main", head)}), false, nil},
		{"a ref with a query", ev("checks_requested", map[string]any{"merge_group": group(ref+"?x=1", head)}), false, nil},
		{"no group", ev("checks_requested", nil), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Router{AppSlug: "verdict"}.Route("merge_group", "d", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if d.Unhandled != tc.unhandled || d.IgnoredSender {
				t.Errorf("unhandled = %v (want %v), ignored sender = %v", d.Unhandled, tc.unhandled, d.IgnoredSender)
			}
			if !reflect.DeepEqual(d.Jobs, tc.want) {
				t.Fatalf("jobs:\n got %#v\nwant %#v", d.Jobs, tc.want)
			}
		})
	}
}
