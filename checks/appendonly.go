package checks

// AppendOnlyCheck is row 12 of the InferenceX preset.
func AppendOnlyCheck() Check { return row(12, notImplemented) }
