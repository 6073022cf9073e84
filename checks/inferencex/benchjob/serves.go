package benchjob

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// Serves reports whether argv starts an inference server: vllm
// serve, trtllm-serve, or python -m with a serving module.
func Serves(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch base := path.Base(argv[0]); {
	case base == "vllm", base == "sglang":
		return len(argv) > 1 && argv[1] == "serve"
	case base == "trtllm-serve":
		return true
	case strings.HasPrefix(base, "python"):
		for i := 1; i+1 < len(argv); i++ {
			if argv[i] == "-m" {
				m := argv[i+1]
				return strings.HasPrefix(m, "sglang.launch_server") || strings.HasPrefix(m, "vllm.entrypoints") ||
					strings.HasPrefix(m, "tensorrt_llm") || strings.HasPrefix(m, "atom.entrypoints")
			}
		}
	}
	return false
}

// lastingWords are the words of a command line (its program or module)
// naming a process that runs until it is stopped besides the engines'
// servers: routers, frontends, proxies, store masters.
var lastingWords = regexp.MustCompile(`(?i)(^|[._/-])(serve|server|router|frontend|proxy|master)([._-]|$)`)

// Lasting reports whether argv runs until it is stopped: an inference
// server (Serves), or a program or module named as a server, router,
// frontend, proxy or master, or run with such a subcommand
// (python3 -m sglang_router.launch_router,
// mooncake_master, lmcache server). A background job that ran one is alive to kill -0 for
// the rest of a dry run; one that ran only commands that end (a barrier
// script, a health poll) is not, once it is done.
func Lasting(argv []string) bool {
	if Serves(argv) {
		return true
	}
	prog := path.Base(argv[0])
	switch {
	case prog == "tail" && slices.ContainsFunc(argv[1:], func(a string) bool { return a == "-f" || a == "-F" || a == "--follow" }):
		return true // follows a log until it is killed
	case prog == "sleep" && len(argv) == 2 && argv[1] == "infinity":
		return true
	}
	if strings.HasPrefix(prog, "python") {
		// The module (-m) or the program file Python runs.
		prog = ""
		for i := 1; i < len(argv); i++ {
			if argv[i] == "-m" && i+1 < len(argv) {
				prog = argv[i+1]
				break
			}
			if !strings.HasPrefix(argv[i], "-") {
				prog = path.Base(argv[i])
				break
			}
		}
	}
	if prog != "" && lastingWords.MatchString(prog) {
		return true
	}
	// A tool whose subcommand serves (lmcache server, dynamo frontend).
	return len(argv) > 1 && !strings.HasPrefix(path.Base(argv[0]), "python") && lastingWords.MatchString(argv[1]) && !strings.ContainsAny(argv[1], "/.")
}
