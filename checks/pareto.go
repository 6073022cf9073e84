package checks

// ParetoCheck is row 14 of the InferenceX preset.
func ParetoCheck() Check { return row(14, notImplemented) }
