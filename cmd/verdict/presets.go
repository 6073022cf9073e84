package main

import (
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// servedPresets are the checklists this binary serves, in the order
// detection tries them (checks.Choose): InferenceX where its layout is
// found, else the repository's own review checklist. It is the one place
// the command names presets: the app reaches a checklist only through the
// checks.Preset it is handed.
var servedPresets = []*checks.Preset{inferencex.Preset, checklist.Preset}
