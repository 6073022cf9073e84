package checks

// CodeownerCheck is row 0 of the InferenceX preset.
func CodeownerCheck() Check { return row(0, notImplemented) }
