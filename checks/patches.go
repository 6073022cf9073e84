package checks

// EnginePatchesCheck is row 10 of the InferenceX preset.
func EnginePatchesCheck() Check { return row(10, notImplemented) }
