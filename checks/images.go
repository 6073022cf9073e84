package checks

// ImagesCheck is row 6 of the InferenceX preset.
func ImagesCheck() Check { return row(6, notImplemented) }
