package checks

import "context"

// InferenceX returns the registry of the InferenceX preset, rows 0-15.
func InferenceX() *Registry {
	reg, err := NewRegistry(
		CodeownerCheck(),         // 0
		SweepCheck(),             // 1
		EvalsCheck(),             // 2
		UpstreamRecipeCheck(),    // 3
		ReuseCheck(),             // 4
		ChecklistTemplateCheck(), // 5
		ImagesCheck(),            // 6
		DeprecatedCheck(),        // 7
		ArchHacksCheck(),         // 8
		ChatTemplateCheck(),      // 9
		EnginePatchesCheck(),     // 10
		GoldenALCheck(),          // 11
		AppendOnlyCheck(),        // 12
		DraftPrecisionCheck(),    // 13
		ParetoCheck(),            // 14
		DescriptionCheck(),       // 15
	)
	if err != nil {
		panic(err) // the preset is a constant; a duplicate is a programming error
	}
	return reg
}

// row builds a Check with the canonical name and advisory flag of row n.
func row(n int, run func(ctx context.Context, pr *PR) Result, after ...int) Check {
	return Check{Number: n, Name: Names[n], Advisory: advisory[n], After: after, Run: run}
}
