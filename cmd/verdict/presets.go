package main

import (
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// servedPreset is the checklist this binary runs. It is the one place the
// command names a preset: the app reaches a checklist only through the
// checks.Preset it is handed.
var servedPreset *checks.Preset = inferencex.Preset
