package replay

import (
	"errors"
	"testing"
)

func TestLastLineNamesTheException(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"Traceback (most recent call last):\n  File \"x.py\", line 3\nValueError: No additions found in the changelog file.\n", "ValueError: No additions found in the changelog file."},
		{"Traceback:\nyaml.scanner.ScannerError: mapping values are not allowed here\n  in \"<unicode string>\", line 3, column 10:\n      a: b: c\n         ^\n",
			`yaml.scanner.ScannerError: mapping values are not allowed here / in "<unicode string>", line 3, column 10: / a: b: c`},
		{"pydantic_core._pydantic_core.ValidationError: 1 validation error for ChangelogEntry\nconfig-keys\n  Field required\nFor further information visit https://errors.pydantic.dev/2/v/missing\n",
			"pydantic_core._pydantic_core.ValidationError: 1 validation error for ChangelogEntry / config-keys / Field required"},
		{"plain failure\n\n", "plain failure"},
		{"", "exit status 1"},
	} {
		if got := lastLine(tc.out, errors.New("exit status 1")); got != tc.want {
			t.Errorf("lastLine(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestCauseIgnoresAnEmptyPath(t *testing.T) {
	if got := cause("", "line 12 of a/b.sh at 0123abc"); got != "line N of <path> at <sha>" {
		t.Errorf("cause = %q", got)
	}
}
