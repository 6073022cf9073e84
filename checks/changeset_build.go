package checks

import (
	"context"
	"errors"
)

// buildChangeSet is replaced by the change-set builder.
func buildChangeSet(ctx context.Context, pr *PR) (*ChangeSet, error) {
	return nil, errors.New("change-set model is not built yet")
}
