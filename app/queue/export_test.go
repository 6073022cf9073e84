package queue

// ClientIDOf is the River client ID under which q's workers fetch jobs.
func ClientIDOf(q *Queue) string { return q.eng.clientID() }
