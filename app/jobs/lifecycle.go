package jobs

// Job kinds of a PR's life after its verdict and of the App's own upkeep.
// They are stored in the queue: never rename one.
const (
	KindHeadMoved = "verdict.head_moved"
	KindRecover   = "verdict.recover_deliveries"
)

// HeadMovedArgs says that new commits were pushed to a PR
// (pull_request.synchronize): its earlier verdicts no longer cover the head.
// Nothing is re-verified; the new head is marked as needing a sign-off.
type HeadMovedArgs struct {
	Repo
	PR int `json:"pr"`
	// Before and After are the payload's heads; the handler re-reads the PR
	// and marks its current head, which a later push may have moved again.
	Before     string `json:"before"`
	After      string `json:"after"`
	DeliveryID string `json:"delivery_id"`
}

// Kind implements Args.
func (HeadMovedArgs) Kind() string { return KindHeadMoved }

// RecoverArgs asks for one pass of missed-webhook recovery: the App's recent
// deliveries that failed and that Verdict never stored are redelivered. The
// queue schedules it periodically on one process.
type RecoverArgs struct{}

// Kind implements Args.
func (RecoverArgs) Kind() string { return KindRecover }
