package checks

// DescriptionCheck is row 15 of the InferenceX preset.
func DescriptionCheck() Check { return row(15, notImplemented) }
