package signoff

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Stamp is what a webhook delivery said of a sign-off's body: its hash and,
// for comments, its updated_at. GitHub does not promise to deliver events
// in order, and a delivery can be redelivered hours later, so a delivery's
// sender is the editor of the body it carried, not of whatever body is
// read when its job runs. The Stamp lets the verifier tell the two apart.
type Stamp struct {
	SHA256    string    `json:"sha256,omitempty"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// BodyHash is the hex SHA-256 of a sign-off body, as the ledger and the
// audit trail record it.
func BodyHash(body string) string {
	h := sha256.Sum256([]byte(body))
	return hex.EncodeToString(h[:])
}

// StampOf stamps a body a delivery carried. updatedAt is zero where the
// payload carries none (reviews).
func StampOf(body string, updatedAt time.Time) Stamp {
	return Stamp{SHA256: BodyHash(body), UpdatedAt: updatedAt.UTC()}
}

// Describes reports whether the stamp is of the body read now: the same
// text, and not older than the version read (an identical text written
// again later by someone else is a later version). The zero Stamp
// describes nothing.
func (s Stamp) Describes(body string, updatedAt time.Time) bool {
	if s.SHA256 == "" || s.SHA256 != BodyHash(body) {
		return false
	}
	return s.UpdatedAt.IsZero() || updatedAt.IsZero() || !updatedAt.After(s.UpdatedAt)
}
