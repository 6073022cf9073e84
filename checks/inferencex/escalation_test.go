package inferencex_test

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// TestEscalation: the paragraph names the configured handles (only those
// that are mentions, so a setting cannot inject Markdown) and the
// configured frontier minimum.
func TestEscalation(t *testing.T) {
	tests := []struct {
		name     string
		handles  []string
		minimum  int
		want     []string
		unwanted []string
	}{
		{"none configured, minimum unset", nil, 0, []string{"no escalation handles are configured", "At least 5 points", "未配置升级处理人"}, nil},
		{"handles and minimum", []string{"@perf/leads", "maintainer-b"}, 8,
			[]string{"review: @perf/leads @maintainer-b.", "At least 8 points", "Below 8,", "至少有 8 个点"}, []string{"5 points"}},
		{"injection dropped", []string{"@ok", "@evil <b>", "[x](https://evil)"}, 5,
			[]string{"review: @ok."}, []string{"evil", "<b>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr := &checks.PR{}
			s := repo.Defaults()
			s.EscalationHandles, s.ParetoMinimum = tt.handles, tt.minimum
			repo.SettingsParam.Set(pr, &s)
			got := inferencex.Preset.EscalationOf(pr)
			both := got.EN + "\n" + got.ZH
			for _, w := range tt.want {
				if !strings.Contains(both, w) {
					t.Errorf("missing %q in\n%s", w, both)
				}
			}
			for _, u := range tt.unwanted {
				if strings.Contains(both, u) {
					t.Errorf("has %q in\n%s", u, both)
				}
			}
		})
	}
}
