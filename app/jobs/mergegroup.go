package jobs

// KindMergeGroup is a merge queue's request for Verdict's check on a merge
// group's commit.
const KindMergeGroup = "verdict.merge_group"

// MergeGroupArgs is one merge_group delivery: checks_requested (publish
// Verdict's status and check run on HeadSHA) or destroyed (settle them as
// cancelled). HeadRef is the group's temporary branch,
// refs/heads/gh-readonly-queue/<base>/pr-<N>-<sha>; BaseSHA the commit the
// group is built on (the base branch's tip, or the group ahead of it).
type MergeGroupArgs struct {
	Repo
	Action     string `json:"action"`
	HeadSHA    string `json:"head_sha"`
	HeadRef    string `json:"head_ref"`
	BaseSHA    string `json:"base_sha"`
	BaseRef    string `json:"base_ref"`
	DeliveryID string `json:"delivery_id"`
}

// Kind implements Args.
func (MergeGroupArgs) Kind() string { return KindMergeGroup }
