package checks

// GoldenALCheck is row 11 of the InferenceX preset.
func GoldenALCheck() Check { return row(11, notImplemented) }
