package repo

import (
	"path"
	"strings"
)

// docExtensions are documentation formats. A documentation file is never a
// runtime setting (RULES.md, "Effective files"), even when it sits next to
// recipes and scripts, so a README under benchmarks/ or runners/ changes no
// benchmark.
var docExtensions = map[string]bool{".md": true, ".markdown": true, ".rst": true, ".adoc": true}

// IsDocFile reports whether p is a documentation file by its extension.
func IsDocFile(p string) bool {
	return docExtensions[strings.ToLower(path.Ext(p))]
}
