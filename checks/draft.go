package checks

// DraftPrecisionCheck is row 13 of the InferenceX preset.
func DraftPrecisionCheck() Check { return row(13, notImplemented) }
