package repo

import "testing"

func TestEarlierConfigsDirIsTheLegacyLayoutsOnly(t *testing.T) {
	l := LegacyLayout()
	for p, want := range map[string]bool{
		"configs/nvidia-master.yaml":               true,
		".github/configs/nvidia-master.yaml":       true,
		".github/configs/deprecated/x-master.yaml": false,
		".github/configs/runners.yaml":             false,
		".github/workflows/nvidia-master.yaml":     false,
	} {
		if got := l.IsMasterConfig(p); got != want {
			t.Errorf("legacy IsMasterConfig(%s) = %v, want %v", p, got, want)
		}
	}
	if !l.UnderConfigs(".github/configs/runners.yaml") || l.UnderConfigs(".github/CODEOWNERS") {
		t.Error("legacy UnderConfigs")
	}
	if e := E2ELayout(); e.IsMasterConfig(".github/configs/nvidia-master.yaml") || e.UnderConfigs(".github/configs/runners.yaml") {
		t.Error("the e2e layout never had .github/configs")
	}
	if o := l.Override(Layout{ConfigsDir: "cfg"}); o.EarlierConfigsDir != "" || o.IsMasterConfig(".github/configs/nvidia-master.yaml") {
		t.Errorf("a configured configs_dir is the only one read: %+v", o)
	}
}
