//go:build race

package main

// raceEnabled builds the serve binary the process tests run with the race
// detector when the tests themselves run with it (and reuses their build).
const raceEnabled = true
