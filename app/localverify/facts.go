package localverify

import (
	"context"
	"errors"
	"fmt"

	"github.com/verdict-bot/verdict/checks"
)

// ErrNoSample is SynthesizeSignOff's error for a preset that cannot write
// a sign-off (checks.Preset.Sample is nil): its changes can be verified
// only with a real one.
var ErrNoSample = errors.New("cannot synthesize a sign-off")

// Facts are what the preset's rows could not read of a change, the
// change's changelog as they read it, and the units they judged affected.
// The history replay reports them.
type Facts struct {
	checks.Inputs
	// Affected are the units the rows judged affected (the preset's
	// Affected), sorted.
	Affected []string
}

// Facts returns the preset's report of the change's inputs (building what
// no row built) and what it judged affected. A preset that reports no
// inputs gives only Affected.
func (c *Change) Facts(ctx context.Context) (Facts, error) {
	var f Facts
	if c.preset.Inputs != nil {
		in, err := c.preset.Inputs(ctx, c.PR)
		if err != nil {
			return Facts{}, fmt.Errorf("reading what the %s preset's rows could not use: %w", c.preset.Name, err)
		}
		f.Inputs = in
	}
	// Affected only looks at what was built: asked after Inputs, it sees
	// what Inputs built too.
	f.Affected, _ = c.preset.AffectedOf(c.PR)
	return f, nil
}

// SynthesizeSignOff writes the sign-off a code owner of this change would
// post, as the preset writes it (checks.Preset.Sample), opening with the
// repository's sign-off phrase. A preset that cannot write one gives an
// error wrapping ErrNoSample.
func (c *Change) SynthesizeSignOff(ctx context.Context) (checks.SampleSignOff, error) {
	if c.preset.Sample == nil {
		return checks.SampleSignOff{}, fmt.Errorf("the %s preset %w; its changes can be verified only with a real one", c.preset.Name, ErrNoSample)
	}
	so, err := c.preset.Sample(ctx, c.PR, c.Config.SignOffPhrase)
	if err != nil {
		return checks.SampleSignOff{}, fmt.Errorf("synthesizing a sign-off with the %s preset: %w", c.preset.Name, err)
	}
	return so, nil
}
