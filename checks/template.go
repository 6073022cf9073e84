package checks

// ChecklistTemplateCheck is row 5 of the InferenceX preset.
func ChecklistTemplateCheck() Check { return row(5, notImplemented) }
