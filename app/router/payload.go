package router

import "time"

// The few payload fields routing reads. Everything else is fetched fresh by
// the workers: a payload is a hint of what happened, not evidence.

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

type repository struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
	Owner    user   `json:"owner"`
}

type installation struct {
	ID int64 `json:"id"`
}

type comment struct {
	ID                int64     `json:"id"`
	Body              *string   `json:"body"`
	User              user      `json:"user"`
	AuthorAssociation string    `json:"author_association"`
	UpdatedAt         time.Time `json:"updated_at"`
}

type review struct {
	ID   int64   `json:"id"`
	Body *string `json:"body"`
	User user    `json:"user"`
}

type pullRequest struct {
	Number int  `json:"number"`
	User   user `json:"user"`
	Head   struct {
		SHA string `json:"sha"`
	} `json:"head"`
}

type issue struct {
	Number int `json:"number"`
	// PullRequest is present only when the issue is a pull request.
	PullRequest *struct {
		URL string `json:"url"`
	} `json:"pull_request"`
}

type changes struct {
	Body *struct {
		From *string `json:"from"`
	} `json:"body"`
}

// payload is the union of the handled events' shapes.
type payload struct {
	Action       string        `json:"action"`
	Number       int           `json:"number"`
	Repository   *repository   `json:"repository"`
	Installation *installation `json:"installation"`
	Sender       user          `json:"sender"`
	Issue        *issue        `json:"issue"`
	Comment      *comment      `json:"comment"`
	Review       *review       `json:"review"`
	PullRequest  *pullRequest  `json:"pull_request"`
	Changes      *changes      `json:"changes"`
	// Lifecycle events (lifecycle.go): a push's heads, a re-run's check.
	Before     string      `json:"before"`
	After      string      `json:"after"`
	CheckRun   *checkRun   `json:"check_run"`
	CheckSuite *checkSuite `json:"check_suite"`
	MergeGroup *mergeGroup `json:"merge_group"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
