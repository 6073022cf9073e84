package serving

import (
	"path"
	"strings"

	"github.com/verdict-bot/verdict/checks/inferencex/repo"
)

// ClientSelection finds the first client setting that selects raw
// completions and the first that selects the chat endpoint or a chat
// template ("file:line name=value"), in the benchmark section of recipes
// and in scripts and helpers: their flag settings and the words of their
// commands, including flags inside command strings built in variables
// (CMD+=" --endpoint-type chat").
func ClientSelection(files []*repo.EffectiveFile) (raw, chat string) {
	note := func(at, name, value string, recipe bool) {
		isRaw, isChat := clientMode(name, value, recipe)
		if isRaw && raw == "" {
			raw = at + " " + name + "=" + value
		}
		if isChat && chat == "" {
			chat = at + " " + name
		}
	}
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, s := range f.Settings {
			if (f.Kind == "recipe" && s.Role != "benchmark") || (f.Kind != "recipe" && s.Role != "") || s.Kind == "command" {
				continue
			}
			note(repo.Loc(s.File, s.Line), s.Name, Unquote(s.Value), f.Kind == "recipe")
		}
		for _, c := range f.Commands {
			var toks []string
			for _, w := range c.Words {
				toks = append(toks, strings.Fields(w)...)
			}
			for i, t := range toks {
				if !strings.HasPrefix(t, "--") {
					continue
				}
				name, value, eq := strings.Cut(t, "=")
				if !eq && i+1 < len(toks) && !strings.HasPrefix(toks[i+1], "-") {
					value = toks[i+1]
				}
				note(repo.Loc(f.Path, c.Line), name, Unquote(value), false)
			}
		}
	}
	return raw, chat
}

// clientMode reads one client setting: whether it selects raw completions
// or the chat endpoint / a chat template. In a recipe's benchmark section
// any chat-template key is the client's; in a script, where server and
// client flags mix, only the client's own switches count (a server's
// --chat-template does not apply to /v1/completions).
func clientMode(name, value string, recipe bool) (isRaw, isChat bool) {
	n, v := repo.SnakeName(name), strings.ToLower(strings.TrimSpace(value))
	endpoint := strings.HasSuffix(n, "endpoint_type") || strings.HasSuffix(n, "endpoint") || strings.HasSuffix(n, "api_type")
	template := n == "use_chat_template" || n == "apply_chat_template" || n == "dsv4" || recipe && strings.Contains(n, "chat_template")
	switch {
	case template && Falsy(v), strings.HasSuffix(v, "/v1/completions"), endpoint && (v == "completions" || v == "completion"):
		return true, false
	case template, strings.HasSuffix(v, "/v1/chat/completions"), endpoint && v == "chat":
		return false, true
	}
	return false, false
}

// ChatTemplated reports whether a benchmark client's argv asks for the
// chat template: --use-chat-template, or --dsv4, which implies it (a
// falsy value switches either off).
func ChatTemplated(w []string) bool {
	return hasFlag(w, "--use-chat-template") || hasFlag(w, "--dsv4")
}

func hasFlag(w []string, flag string) bool {
	for _, x := range w {
		if x == flag || strings.HasPrefix(x, flag+"=") {
			if v, ok := strings.CutPrefix(x, flag+"="); ok && Falsy(v) {
				return false
			}
			return true
		}
	}
	return false
}

// BenchmarkClient reports whether argv runs the serving benchmark client:
// the repository's benchmark_serving.py, sglang.bench_serving, or vllm
// bench serve.
func BenchmarkClient(w []string) bool {
	if len(w) == 0 {
		return false
	}
	switch p := path.Base(w[0]); {
	case p == "benchmark_serving.py":
		return true
	case p == "vllm":
		return len(w) > 2 && w[1] == "bench" && w[2] == "serve"
	case strings.HasPrefix(p, "python"):
		// The module (-m) or program file Python runs.
		for i := 1; i < len(w); i++ {
			if w[i] == "-m" {
				return i+1 < len(w) && w[i+1] == "sglang.bench_serving"
			}
			if !strings.HasPrefix(w[i], "-") {
				return path.Base(w[i]) == "benchmark_serving.py"
			}
		}
	}
	return false
}
