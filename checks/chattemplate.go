package checks

// ChatTemplateCheck is row 9 of the InferenceX preset.
func ChatTemplateCheck() Check { return row(9, notImplemented) }
