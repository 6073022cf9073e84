package contract

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// handledEvents are the deliveries Verdict subscribes to, as the webhooks
// description names them.
var handledEvents = []string{"check-run", "check-suite", "issue-comment", "merge-group", "pull-request", "pull-request-review", "pull-request-review-comment"}

// Webhooks is GitHub's webhooks description (OpenAPI 3.1).
type Webhooks struct{ doc *openapi3.T }

// LoadWebhooks reads the webhooks description.
func LoadWebhooks(dir string) (*Webhooks, error) {
	raw, err := os.ReadFile(filepath.Join(dir, webhooksFile))
	if err == nil {
		raw, err = prune(raw, "webhooks", func(name string) bool {
			for _, event := range handledEvents {
				if strings.HasPrefix(name, event+"-") {
					return true
				}
			}
			return false
		})
	}
	var doc *openapi3.T
	if err == nil {
		doc, err = openapi3.NewLoader().LoadFromData(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", webhooksFile, err)
	}
	return &Webhooks{doc: doc}, nil
}

// Check validates a delivery's payload against the description of its
// event and action (issue_comment + created is "issue-comment-created").
func (w *Webhooks) Check(event string, payload []byte) error {
	var head struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(payload, &head); err != nil {
		return fmt.Errorf("%s delivery is not JSON: %w", event, err)
	}
	name := strings.ReplaceAll(event, "_", "-")
	if head.Action != "" {
		name += "-" + strings.ReplaceAll(head.Action, "_", "-")
	}
	item := w.doc.Webhooks[name]
	if item == nil || item.Post == nil || item.Post.RequestBody == nil {
		return fmt.Errorf("GitHub's webhooks description has no %s delivery", name)
	}
	mt := item.Post.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return fmt.Errorf("webhook %s has no JSON schema", name)
	}
	var value any
	if err := json.Unmarshal(payload, &value); err != nil {
		return err
	}
	if err := mt.Schema.Value.VisitJSON(value, openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("%s delivery does not conform to GitHub's webhooks description:\n    %s", name, strings.Join(describe(err), "\n    "))
	}
	return nil
}

var loaded struct {
	once sync.Once
	w    *Webhooks
	err  error
}

// Webhook fails t when payload is not a delivery GitHub could send for
// event. Tests call it on every delivery they post as GitHub's. Without
// the descriptions it does nothing (contract.Main has said so).
func Webhook(t testing.TB, event string, payload []byte) {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		return
	}
	loaded.once.Do(func() { loaded.w, loaded.err = LoadWebhooks(dir) })
	if loaded.err != nil {
		t.Fatalf("contract: %v", loaded.err)
	}
	if err := loaded.w.Check(event, payload); err != nil {
		t.Errorf("contract: %v", err)
	}
}
