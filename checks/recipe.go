package checks

// UpstreamRecipeCheck is row 3 of the InferenceX preset.
func UpstreamRecipeCheck() Check { return row(3, notImplemented) }
