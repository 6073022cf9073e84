package trace

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// The cluster a dry run answers for grants every allocation the nodes it
// asks for (salloc or sbatch --nodes, one by default), named node001,
// node002, …: squeue reports them as the job's node list, scontrol
// expands that list, and each srun task runs on its own.

// nodeName is the name of the i-th node (from 0) of an allocation.
func nodeName(i int) string { return fmt.Sprintf("node%03d", i+1) }

// hostlist is Slurm's compact form of an allocation of n nodes.
func hostlist(n int) string {
	if n <= 1 {
		return nodeName(0)
	}
	return fmt.Sprintf("node[%03d-%03d]", 1, n)
}

// expandHostlist expands Slurm host lists ("node[001-003,007],gpu1") into
// names, at most maxNodes of them.
func expandHostlist(list string) []string {
	var out []string
	for len(list) > 0 && len(out) < maxNodes {
		// A comma inside brackets is not a separator.
		end, depth := len(list), 0
		for i, c := range list {
			switch {
			case c == '[':
				depth++
			case c == ']':
				depth--
			case c == ',' && depth == 0:
				end = i
			}
			if end != len(list) {
				break
			}
		}
		item := list[:end]
		list = strings.TrimPrefix(list[end:], ",")
		prefix, ranges, ok := strings.Cut(item, "[")
		if !ok {
			if item != "" {
				out = append(out, item)
			}
			continue
		}
		ranges, suffix, _ := strings.Cut(ranges, "]")
		for _, r := range strings.Split(ranges, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, errA := strconv.Atoi(lo)
			b := a
			var errB error
			if isRange {
				b, errB = strconv.Atoi(hi)
			}
			if errA != nil || errB != nil || b < a || len(lo) > maxNodeDigits {
				continue
			}
			for n := a; n <= b && len(out) < maxNodes; n++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), n, suffix))
			}
		}
	}
	return out
}

// maxNodes bounds the names a host list expands to, maxNodeDigits the
// zero-padded width of their numbers.
const (
	maxNodes      = 4096
	maxNodeDigits = 9
)

// allocate notes the allocation salloc or sbatch makes (its job
// variables, from slurmRun) and adds its node list to them.
func (r *run) allocate(env map[string]string) {
	n := max(count(env["SLURM_NNODES"]), 1)
	r.mu.Lock()
	r.nodes = n
	r.mu.Unlock()
	env["SLURM_JOB_NODELIST"], env["SLURM_NODELIST"] = hostlist(n), hostlist(n)
}

// nodeListQuery reports whether squeue's arguments ask for the job's node
// list (-o %N, --format=%N, -O NodeList).
func nodeListQuery(args []string) bool {
	for i, a := range args {
		v, ok := "", false
		switch {
		case a == "-o" || a == "--format" || a == "-O" || a == "--Format":
			if i+1 < len(args) {
				v, ok = args[i+1], true
			}
		case strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--Format="):
			_, v, ok = strings.Cut(a, "=")
		case strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "-O"):
			v, ok = a[2:], true
		}
		if ok && (strings.Contains(v, "%N") || strings.Contains(strings.ToLower(v), "nodelist")) {
			return true
		}
	}
	return false
}

// scontrol answers `scontrol show hostnames [LIST]` (LIST defaults to the
// job's SLURM_JOB_NODELIST); anything else prints nothing.
func (r *run) scontrol(hc interp.HandlerContext, args []string) error {
	if len(args) < 3 || args[1] != "show" || (args[2] != "hostnames" && args[2] != "hostname") {
		return nil
	}
	list := hc.Env.Get("SLURM_JOB_NODELIST").String()
	if len(args) > 3 {
		list = args[3]
	}
	for _, h := range expandHostlist(list) {
		io.WriteString(hc.Stdout, h+"\n")
	}
	return nil
}
