package trace

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/benhoyt/goawk/interp"
	"github.com/benhoyt/goawk/parser"
	"mvdan.cc/sh/v3/expand"
	shinterp "mvdan.cc/sh/v3/interp"
)

// Bounds of one awk run in a dry run: scripts use awk to compute (compare
// two ratios, pick a field), never for long, and what it prints lands in a
// variable or a pipe.
const (
	awkTimeout = time.Second
	maxAwkOut  = 1 << 20
)

// errAwkOut stops an awk program that prints more than maxAwkOut bytes.
var errAwkOut = errors.New("awk printed too much")

// awk runs an awk program as awk would, with GoAWK: -v assignments, -F,
// -f program files and input files read from the repository and the
// overlay (like grep). The program can neither run commands nor read or
// write files of its own (getline from a file, print > file, system()):
// those fail, and so does the command. A program that does not parse
// exits 2, as awk does.
func (r *run) awk(ctx context.Context, hc shinterp.HandlerContext, args []string) error {
	var vars, assigns, files []string
	var src string
	haveProg := false
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--":
			if !haveProg && len(rest) > 0 {
				src, haveProg, rest = rest[0], true, rest[1:]
			}
			files = append(files, rest...)
			rest = nil
		case (a == "-v" || a == "-F" || a == "-f") && len(rest) > 0:
			rest = append([]string{a + rest[0]}, rest[1:]...)
		case strings.HasPrefix(a, "-v") && len(a) > 2:
			if k, v, ok := strings.Cut(a[2:], "="); ok {
				vars = append(vars, k, v)
			}
		case strings.HasPrefix(a, "-F") && len(a) > 2:
			vars = append(vars, "FS", a[2:])
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			data, err := r.read(ctx, absPath(hc.Dir, a[2:]))
			if err != nil {
				return status(2)
			}
			src, haveProg = string(data), true
		case strings.HasPrefix(a, "-") && len(a) > 1 && !haveProg:
			// Another option (--posix, -b): no effect on what a dry run
			// computes.
		case !haveProg:
			src, haveProg = a, true
		case strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			assigns = append(assigns, a)
		default:
			files = append(files, a)
		}
	}
	if !haveProg {
		return status(2)
	}
	prog, err := parser.ParseProgram([]byte(src), nil)
	if err != nil {
		return status(2)
	}
	in, ok := r.input(ctx, hc, files)
	if !ok {
		return status(2)
	}
	var environ []string
	hc.Env.Each(func(name string, v expand.Variable) bool {
		if v.Exported {
			environ = append(environ, name, v.String())
		}
		return true
	})
	p, err := interp.New(prog)
	if err != nil {
		return status(2)
	}
	actx, cancel := context.WithTimeout(ctx, awkTimeout)
	defer cancel()
	code, err := p.ExecuteContext(actx, &interp.Config{
		Stdin: in, Output: &limited{w: hc.Stdout, n: maxAwkOut}, Error: io.Discard,
		Args: assigns, Vars: vars, Environ: environ,
		NoExec: true, NoFileWrites: true, NoFileReads: true,
	})
	if err != nil {
		return status(2)
	}
	return status(uint8(code))
}

// limited writes at most n bytes to w, then fails.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if len(p) > l.n {
		return 0, errAwkOut
	}
	l.n -= len(p)
	return l.w.Write(p)
}
