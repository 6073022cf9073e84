package checks

// ArchHacksCheck is row 8 of the InferenceX preset.
func ArchHacksCheck() Check { return row(8, notImplemented) }
