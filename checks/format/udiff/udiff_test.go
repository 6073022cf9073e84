package udiff

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	p := "@@ -10,3 +10,4 @@ func\n ctx\n-old\n+new1\n+new2\n ctx2\n\\ No newline at end of file\n@@ -40 +41 @@\n-x\n+y\n"
	a, r, trunc := Parse(p)
	if trunc || !reflect.DeepEqual(a, []Line{{Line: 11, Text: "new1"}, {Line: 12, Text: "new2"}, {Line: 41, Text: "y"}}) ||
		!reflect.DeepEqual(r, []Line{{Line: 11, Text: "old"}, {Line: 40, Text: "x"}}) {
		t.Fatalf("added %+v removed %+v", a, r)
	}
}
