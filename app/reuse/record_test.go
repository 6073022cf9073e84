package reuse

import (
	"context"
	"testing"
)

type commandLog []Command

func (l *commandLog) RecordCommand(_ context.Context, c Command) error {
	*l = append(*l, c)
	return nil
}

// Every answered command reaches the history, accepted or not, with its
// author and the summary line; a comment that is no command does not.
func TestAcknowledgeRecordsCommands(t *testing.T) {
	e := newEnv(t)
	var log commandLog
	e.ack.Recorder = &log
	for _, body := range []string{"/use 30123456789", "/use 555", "/use", "Please /use 123"} {
		e.acknowledge(e.post("maintainer", "MEMBER", body), "created")
	}
	want := []struct {
		cmd      string
		accepted bool
		outcome  string
	}{
		{"/use 30123456789", true, "Reuse accepted / 复用请求已接受: PR #12, run 30123456789 (success)."},
		{"/use 555", false, "Reuse rejected / 复用请求未接受: run 555 was triggered by push, not pull_request"},
		{"/use", false, "Reuse rejected / 复用请求未接受: Usage: /use <run_id> or /reuse-sweep-run [run_id]"},
	}
	if len(log) != len(want) {
		t.Fatalf("recorded %+v", log)
	}
	for i, w := range want {
		c := log[i]
		if c.Command != w.cmd || c.Accepted != w.accepted || c.Outcome != w.outcome || c.Actor != "maintainer" ||
			c.PR != prNum || c.Owner+"/"+c.Repo != repoName || c.CommentID == 0 || c.DeliveryID != "d-created" {
			t.Errorf("command %d = %+v, want %+v", i, c, w)
		}
	}
}
