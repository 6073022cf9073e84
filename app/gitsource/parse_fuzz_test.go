package gitsource

import "testing"

// The readers of git's output must never panic, whatever bytes arrive.
func FuzzParsers(f *testing.F) {
	f.Add([]byte("100644 a\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13"))
	f.Add([]byte("tree 0123456789012345678901234567890123456789\nauthor A <a@b> 1700000000 +0100\n\nmsg\n"))
	f.Add([]byte(":100644 100644 aaaa bbbb R090\x00old\x00new\x00:000000 100644 0000 cccc A\x00x\x00"))
	f.Add([]byte("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseTree(b, 20)
		_, _ = parseCommit("0123456789012345678901234567890123456789", b)
		_, _ = parseRaw(b)
		for _, s := range splitSections(b) {
			countLines(s.hunks)
		}
	})
}
