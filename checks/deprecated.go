package checks

// DeprecatedCheck is row 7 of the InferenceX preset.
func DeprecatedCheck() Check { return row(7, notImplemented) }
