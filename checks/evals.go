package checks

// EvalsCheck is row 2 of the InferenceX preset.
func EvalsCheck() Check { return row(2, notImplemented) }
