// Package templates embeds the text/template files for every comment Verdict
// writes. Each comment kind has one file per language (<kind>.<lang>.tmpl);
// the files of one language define the same template names, so the renderer
// runs the same composition for English and Chinese.
package templates

import "embed"

// FS holds all *.tmpl files of this directory.
//
//go:embed *.tmpl
var FS embed.FS
