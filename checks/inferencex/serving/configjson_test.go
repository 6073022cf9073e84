package serving

import (
	"testing"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// A config.json edit is one however it is written; reading the file is not.
func TestEditsConfigJSON(t *testing.T) {
	for _, tc := range []struct {
		raw, heredoc string
		edits        bool
	}{
		{`sed -i 's/"num_hidden_layers": 61/"num_hidden_layers": 4/' "$MODEL/config.json"`, "", true},
		{`jq '.num_experts = 8' config.json > tmp && mv tmp config.json`, "", true},
		{`python3 - "$DRAFT/config.json" <<'PY'`, "import json,sys\nc=json.load(open(sys.argv[1]))\nc['causal']=True\njson.dump(c, open(sys.argv[1], 'w'))\n", true},
		{`python3 -c "import json; json.load(open('config.json'))"`, "", false},
		{`cat "$MODEL/config.json"`, "", false},
		{`sed -i 's/a/b/' run.sh`, "", false},
	} {
		if got := EditsConfigJSON(repo.Command{Raw: tc.raw, Heredoc: tc.heredoc}); got != tc.edits {
			t.Errorf("%q: edits = %v, want %v", tc.raw, got, tc.edits)
		}
	}
}
