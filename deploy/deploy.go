// Package deploy holds what an operator deploys Verdict with: the GitHub App
// manifest, the Kubernetes manifests, the example repository configuration
// and its JSON Schema. The App manifest is embedded so that verdict setup
// registers exactly the App this directory describes.
package deploy

import _ "embed"

// AppManifest is app-manifest.yml: the App's permissions and events.
//
//go:embed app-manifest.yml
var AppManifest []byte
