package codeowners

import "strings"

// LeadOwner is the individual owner ("@login", neither a team nor an
// email address) who owns the most of paths through specific rules: who a
// change's code owner most likely is. Ties go to the owner listed first in
// the file. When no specific rule names an individual for any of paths,
// the first individual of the catch-all rule that decides them leads, then
// the first individual listed anywhere; "" when the file names none. Empty
// paths (a file's previous path when it was not renamed) are skipped.
func (c File) LeadOwner(paths []string) string {
	individual := func(o string) bool { return strings.HasPrefix(o, "@") && !IsTeam(o) }
	// Owners compare case-insensitively, as GitHub logins do; order
	// holds each one's place in the file, from 1.
	order := map[string]int{}
	var listed []string
	for _, r := range c.Rules {
		for _, o := range r.Owners {
			if k := strings.ToLower(o); individual(o) && order[k] == 0 {
				listed = append(listed, o)
				order[k] = len(listed)
			}
		}
	}
	owns := map[string]int{}
	var catchAll []string
	for _, p := range paths {
		r, ok := c.Match(p)
		if p == "" || !ok {
			continue
		}
		for _, o := range r.Owners {
			switch {
			case !individual(o):
			case r.CatchAll:
				catchAll = append(catchAll, o)
			default:
				owns[strings.ToLower(o)]++
			}
		}
	}
	lead := ""
	for _, o := range listed {
		k := strings.ToLower(o)
		if owns[k] > 0 && (lead == "" || owns[k] > owns[strings.ToLower(lead)]) {
			lead = o
		}
	}
	switch {
	case lead != "":
	case len(catchAll) > 0:
		lead = catchAll[0]
	case len(listed) > 0:
		lead = listed[0]
	}
	return lead
}
