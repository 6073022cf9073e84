package trace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// Stub is what a command answers in a dry run: what it prints and its
// exit status.
type Stub struct {
	Out  string
	Exit uint8
}

// DefaultStubs answer the probes benchmark scripts make of the machine
// they run on. A dry run knows none of it, so each answers as the quietest
// healthy machine would: no GPU processes, no cluster jobs, a fixed clock.
// Anything not listed here and not computed (see builtinTool) prints
// nothing and succeeds.
var DefaultStubs = map[string]Stub{
	"hostname":   {Out: "runner\n"},
	"whoami":     {Out: "runner\n"},
	"id":         {Out: "1000\n"},
	"uname":      {Out: "Linux\n"},
	"nproc":      {Out: "8\n"},
	"date":       {Out: "1767225600\n"}, // 2026-01-01 00:00:00 UTC (epoch)
	"squeue":     {},                    // no jobs: waits for a job end at once
	"sinfo":      {},
	"nvidia-smi": {},
	"rocm-smi":   {},
	"amd-smi":    {},
	// One RDMA device, rdma0, its port active (as /sys/class/infiniband
	// answers): a script that detects its devices finds it.
	"ibv_devinfo": {Out: "hca_id:\trdma0\n\ttransport:\t\t\tInfiniBand (0)\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"},
	"ibv_devices": {Out: "    device          \t   node GUID\n    ------          \t----------------\n    rdma0           \t0000000000000000\n"},
	"curl":        {Exit: 0}, // a server's health endpoint answers
	"wget":        {Exit: 0},
	// A background process of the dry run (a server) is alive: "S",
	// sleeping, is what ps -o stat= prints for a healthy server.
	"ps":    {Out: "S\n"},
	"pgrep": {Exit: 1},
}

// machineFile is a file of the machine a job runs on, outside its
// checkout, that a dry run answers as the quietest healthy machine would.
type machineFile struct {
	path    *regexp.Regexp
	content string
	dir     bool
}

// machineFiles are the probes of the machine benchmark scripts make by
// reading files: every RDMA port a script asks about is up (a script
// choosing its rail takes the first it tries). Anything else outside the
// checkout and the storage the machine provides does not exist.
var machineFiles = []machineFile{
	{path: regexp.MustCompile(`^/sys/class/infiniband$`), dir: true},
	{path: regexp.MustCompile(`^/sys/class/infiniband/[^/]+$`), dir: true},
	{path: regexp.MustCompile(`^/sys/class/infiniband/[^/]+/ports/[0-9]+/state$`), content: "4: ACTIVE\n"},
}

// machine returns the machine's file at abs, if it is one the dry run
// answers.
func machine(abs string) (machineFile, bool) {
	for _, m := range machineFiles {
		if m.path.MatchString(abs) {
			return m, true
		}
	}
	return machineFile{}, false
}

// builtinTool answers a command that is not a script: a pure one is
// computed, a probe answers from the stubs, the rest succeed silently.
func (r *run) builtinTool(ctx context.Context, hc interp.HandlerContext, name string, args []string) error {
	if s, ok := r.opt.Stubs[name]; ok {
		io.WriteString(hc.Stdout, s.Out)
		return status(s.Exit)
	}
	switch name {
	case "dirname":
		for _, a := range args[1:] {
			fmt.Fprintln(hc.Stdout, path.Dir(strings.TrimSuffix(a, "/")))
		}
		return nil
	case "basename":
		if len(args) > 1 {
			b := path.Base(args[1])
			if len(args) > 2 {
				b = strings.TrimSuffix(b, args[2])
			}
			fmt.Fprintln(hc.Stdout, b)
		}
		return nil
	case "realpath", "readlink":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") {
				fmt.Fprintln(hc.Stdout, absPath(hc.Dir, a))
			}
		}
		return nil
	case "cat":
		return r.cat(ctx, hc, args)
	case "tee":
		return r.tee(ctx, hc, args)
	case "cp", "install":
		return r.copyFile(ctx, hc, args)
	case "grep":
		return r.grep(ctx, hc, args)
	case "awk", "gawk", "mawk":
		return r.awk(ctx, hc, args)
	case "cut":
		return r.cut(ctx, hc, args)
	case "paste":
		return r.paste(ctx, hc, args)
	case "head", "tail", "sort", "uniq":
		_, err := io.Copy(hc.Stdout, hc.Stdin)
		return err
	case "seq":
		return seq(hc, args)
	case "false":
		return status(1)
	case "scontrol":
		return r.scontrol(hc, args)
	case "squeue":
		if nodeListQuery(args[1:]) {
			// The allocation's nodes, while there is one.
			r.mu.Lock()
			n := r.nodes
			r.mu.Unlock()
			if n > 0 {
				io.WriteString(hc.Stdout, hostlist(n)+"\n")
			}
			return nil
		}
		// The first query finds the allocation the script just made (one
		// job, ID 1000); every later one finds it ended, so a wait for
		// the job to finish ends at once.
		r.mu.Lock()
		first := !r.squeued
		r.squeued = true
		r.mu.Unlock()
		if first {
			io.WriteString(hc.Stdout, batchJobID+"\n")
		}
		return nil
	case "mkdir":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") {
				r.mark(r.dirs, absPath(hc.Dir, a))
			}
		}
		return nil
	case "hf", "huggingface-cli", "git", "curl", "wget":
		if p := fetchTarget(name, args[1:]); p != "" {
			r.mark(r.fetched, absPath(hc.Dir, p))
		}
	}
	if p := venvTarget(name, args[1:]); p != "" {
		// A virtual environment, made: its interpreter and the tools
		// installed into it are there.
		r.mark(r.fetched, absPath(hc.Dir, p))
	}
	if name == "date" && slices.ContainsFunc(args[1:], func(a string) bool { return strings.HasPrefix(a, "+%s") }) {
		// The epoch seconds move with the dry run's clock, as $SECONDS
		// does, so that a loop with a deadline on `date +%s` ends.
		r.mu.Lock()
		now := epoch + r.clock
		r.mu.Unlock()
		fmt.Fprintln(hc.Stdout, now)
		return nil
	}
	if s, ok := DefaultStubs[name]; ok {
		io.WriteString(hc.Stdout, s.Out)
		return status(s.Exit)
	}
	return nil
}

// epoch is the dry run's time when it starts (date's stub prints it).
const epoch = 1767225600

// mark records p in set.
// batchJobID is the ID of the batch job a dry run submits (sbatch) and
// then finds queued (squeue).
const batchJobID = "1000"

func (r *run) mark(set map[string]bool, p string) {
	r.mu.Lock()
	set[p] = true
	r.mu.Unlock()
}

// fetchTarget is the place a download or clone fills: hf download's
// --local-dir, git clone's directory, curl -o and wget -O's file.
// venvTarget is the directory a command makes a Python virtual
// environment in (uv venv DIR, python -m venv DIR, virtualenv DIR), "" for
// any other command.
func venvTarget(name string, args []string) string {
	switch {
	case name == "uv" && len(args) > 0 && args[0] == "venv":
		args = args[1:]
	case strings.HasPrefix(name, "python") && len(args) > 1 && args[0] == "-m" && (args[1] == "venv" || args[1] == "virtualenv"):
		args = args[2:]
	case name == "virtualenv":
	default:
		return ""
	}
	dir := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--python" || a == "-p" || a == "--prompt":
			i++ // takes a value
		case strings.HasPrefix(a, "-"):
		default:
			dir = a
		}
	}
	return dir
}

func fetchTarget(name string, args []string) string {
	opt := func(flags ...string) string {
		for i, a := range args {
			for _, f := range flags {
				if a == f && i+1 < len(args) {
					return args[i+1]
				}
				if v, ok := strings.CutPrefix(a, f+"="); ok {
					return v
				}
			}
		}
		return ""
	}
	switch name {
	case "hf", "huggingface-cli":
		if len(args) > 0 && args[0] == "download" {
			return opt("--local-dir")
		}
	case "curl":
		return opt("-o", "--output")
	case "wget":
		return opt("-O", "--output-document")
	case "git":
		if len(args) == 0 || args[0] != "clone" {
			return ""
		}
		var pos []string
		for i := 1; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--depth" || a == "-b" || a == "--branch" || a == "--filter" || a == "-c":
				i++
			case strings.HasPrefix(a, "-"):
			default:
				pos = append(pos, a)
			}
		}
		switch len(pos) {
		case 1:
			return strings.TrimSuffix(path.Base(pos[0]), ".git")
		case 2:
			return pos[1]
		}
	}
	return ""
}

func status(code uint8) error {
	if code == 0 {
		return nil
	}
	return interp.ExitStatus(code)
}

// cat prints its files (from the overlay or the repository), or its
// standard input: "cat > f <<EOF" writes the heredoc to f.
func (r *run) cat(ctx context.Context, hc interp.HandlerContext, args []string) error {
	var files []string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") || a == "-" {
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		_, err := io.Copy(hc.Stdout, hc.Stdin)
		return err
	}
	code := uint8(0)
	for _, f := range files {
		if f == "-" {
			io.Copy(hc.Stdout, hc.Stdin)
			continue
		}
		data, err := r.read(ctx, absPath(hc.Dir, f))
		if err != nil {
			code = 1
			continue
		}
		hc.Stdout.Write(data)
	}
	return status(code)
}

// tee copies its input to its output and to each file, recorded as writes.
func (r *run) tee(ctx context.Context, hc interp.HandlerContext, args []string) error {
	data, err := io.ReadAll(io.LimitReader(hc.Stdin, int64(r.opt.MaxWritten)+1))
	if err != nil {
		return err
	}
	hc.Stdout.Write(data)
	appendTo := false
	for _, a := range args[1:] {
		switch {
		case a == "-a" || a == "--append":
			appendTo = true
		case strings.HasPrefix(a, "-"):
		default:
			w := &writer{r: r, path: absPath(hc.Dir, a), appendTo: appendTo, file: r.rel(a), line: int(hc.Pos.Line())}
			if _, err := w.Write(data); err != nil {
				return err
			}
			w.Close()
		}
	}
	return nil
}

// copyFile records "cp SRC DST" as a write of SRC's content (when the
// trace can read it) to DST: copying a file over the serving stack is a
// patch however it is spelled.
func (r *run) copyFile(ctx context.Context, hc interp.HandlerContext, args []string) error {
	var ops []string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			ops = append(ops, a)
		}
	}
	if len(ops) < 2 {
		return nil
	}
	dst := absPath(hc.Dir, ops[len(ops)-1])
	for _, src := range ops[:len(ops)-1] {
		data, err := r.read(ctx, absPath(hc.Dir, src))
		target := dst
		if exists, dir := r.dirAt(ctx, dst); exists && dir || len(ops) > 2 {
			target = path.Join(dst, path.Base(src))
		}
		w := &writer{r: r, path: target, file: r.rel(src), line: int(hc.Pos.Line())}
		if err == nil {
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		w.Close()
	}
	return nil
}

func (r *run) dirAt(ctx context.Context, p string) (bool, bool) {
	if !r.inRepo(p) {
		return false, false
	}
	return r.files.Stat(ctx, r.rel(p))
}

// grep filters its input with the options scripts use to test for a
// line: -q, -v, -i, -E, -F, -c, -o. Files are read from the repository.
// maxGrepBytes bounds what one grep reads of the files it names.
const maxGrepBytes = 16 << 20

// grep matches lines of its input, or of the files it names (the
// checkout's or the script's own), like grep.
func (r *run) grep(ctx context.Context, hc interp.HandlerContext, args []string) error {
	quiet, invert, fold, fixed, count, only, perl := false, false, false, false, false, false, false
	var pattern *string
	var files []string
	for _, a := range args[1:] {
		switch {
		case pattern != nil:
			files = append(files, a)
		case pattern == nil && strings.HasPrefix(a, "-") && len(a) > 1:
			for _, c := range a[1:] {
				switch c {
				case 'q':
					quiet = true
				case 'v':
					invert = true
				case 'i':
					fold = true
				case 'F':
					fixed = true
				case 'c':
					count = true
				case 'o':
					only = true
				case 'P':
					perl = true
				}
			}
		case pattern == nil:
			p := a
			pattern = &p
		}
	}
	if pattern == nil {
		return status(2)
	}
	expr := *pattern
	if fixed {
		expr = regexp.QuoteMeta(expr)
	}
	// Perl's \K (grep -oP 'Granted job allocation \K[0-9]+') keeps what
	// matched before it out of the match: the submatch after it is what
	// -o prints.
	keep := 0
	if i := strings.Index(expr, `\K`); perl && i >= 0 {
		expr, keep = "(?:"+expr[:i]+")("+expr[i+2:]+")", 1
	}
	if fold {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return status(2)
	}
	sc, ok := r.lines(ctx, hc, files)
	if !ok {
		return status(2)
	}
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if re.MatchString(line) == invert {
			continue
		}
		n++
		switch {
		case quiet || count:
		case only:
			for _, m := range re.FindAllStringSubmatch(line, -1) {
				fmt.Fprintln(hc.Stdout, m[keep])
			}
		default:
			fmt.Fprintln(hc.Stdout, line)
		}
	}
	if count {
		fmt.Fprintln(hc.Stdout, n)
	}
	if n == 0 {
		return status(1)
	}
	return nil
}

// lines is input read line by line (a line of up to 1 MiB).
func (r *run) lines(ctx context.Context, hc interp.HandlerContext, files []string) (*bufio.Scanner, bool) {
	in, ok := r.input(ctx, hc, files)
	if !ok {
		return nil, false
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return sc, true
}

// input is what a filter (grep, awk) reads: its files one after the other,
// each ending its last line, from the repository and the overlay, or its
// standard input when it names none. false when a file cannot be read, or
// they hold more than a dry run reads for one command: the filter's error
// (2).
func (r *run) input(ctx context.Context, hc interp.HandlerContext, files []string) (io.Reader, bool) {
	if len(files) == 0 {
		return hc.Stdin, true
	}
	var all bytes.Buffer
	for _, f := range files {
		data, err := r.read(ctx, absPath(hc.Dir, f))
		if err != nil || all.Len()+len(data) > maxGrepBytes {
			return nil, false
		}
		all.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			all.WriteByte('\n')
		}
	}
	return &all, true
}

func seq(hc interp.HandlerContext, args []string) error {
	var nums []int
	for _, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil {
			return status(1)
		}
		nums = append(nums, n)
	}
	first, step, last := 1, 1, 0
	switch len(nums) {
	case 1:
		last = nums[0]
	case 2:
		first, last = nums[0], nums[1]
	case 3:
		first, step, last = nums[0], nums[1], nums[2]
	default:
		return status(1)
	}
	if step == 0 || (last-first)/step > 10000 {
		return status(1)
	}
	for i := first; (step > 0 && i <= last) || (step < 0 && i >= last); i += step {
		fmt.Fprintln(hc.Stdout, i)
	}
	return nil
}
