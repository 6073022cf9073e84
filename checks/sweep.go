package checks

// SweepCheck is row 1 of the InferenceX preset.
func SweepCheck() Check { return row(1, notImplemented) }
