package checks

// ReuseCheck is row 4 of the InferenceX preset.
func ReuseCheck() Check { return row(4, notImplemented) }
