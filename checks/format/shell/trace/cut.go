package trace

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/interp"
)

// cut runs cut as GNU cut does for the forms scripts use on values they
// hold (`echo "$IBDEVICES" | cut -d, -f1`): fields (-f LIST with -d, tab
// by default; -s drops lines without the delimiter) or characters and
// bytes (-c, -b LIST). Input longer than maxGrepBytes is not read.
func (r *run) cut(ctx context.Context, hc interp.HandlerContext, args []string) error {
	delim, list, mode, only := "\t", "", byte(0), false
	var files []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		val := func(opt string) string {
			if v := strings.TrimPrefix(a, opt); v != "" {
				return strings.TrimPrefix(v, "=")
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case strings.HasPrefix(a, "--delimiter"):
			delim = val("--delimiter")
		case strings.HasPrefix(a, "--fields"):
			list, mode = val("--fields"), 'f'
		case strings.HasPrefix(a, "-d"):
			delim = val("-d")
		case strings.HasPrefix(a, "-f"):
			list, mode = val("-f"), 'f'
		case strings.HasPrefix(a, "-c"), strings.HasPrefix(a, "-b"):
			list, mode = val(a[:2]), 'c'
		case a == "-s" || a == "--only-delimited":
			only = true
		case a == "-" || !strings.HasPrefix(a, "-"):
			files = append(files, a)
		}
	}
	ranges, ok := cutRanges(list)
	if !ok || mode == 0 || len(delim) != 1 {
		fmt.Fprintln(hc.Stderr, "cut: invalid option or list")
		return status(1)
	}
	in, ok := r.input(ctx, hc, files)
	if !ok {
		return status(1)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxGrepBytes)
	for sc.Scan() {
		line := sc.Text()
		if mode == 'c' {
			var b strings.Builder
			for i := range len(line) {
				if inRanges(ranges, i+1) {
					b.WriteByte(line[i])
				}
			}
			fmt.Fprintln(hc.Stdout, b.String())
			continue
		}
		if !strings.Contains(line, delim) {
			if !only {
				fmt.Fprintln(hc.Stdout, line)
			}
			continue
		}
		var kept []string
		for i, f := range strings.Split(line, delim) {
			if inRanges(ranges, i+1) {
				kept = append(kept, f)
			}
		}
		fmt.Fprintln(hc.Stdout, strings.Join(kept, delim))
	}
	return nil
}

// cutRanges reads a cut LIST (1,3-5,7-): each range's first and last,
// 0 for an open end.
func cutRanges(list string) ([][2]int, bool) {
	if list == "" {
		return nil, false
	}
	var out [][2]int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, b := 1, 0
		var err error
		if lo != "" {
			if a, err = strconv.Atoi(lo); err != nil || a < 1 {
				return nil, false
			}
		}
		switch {
		case !isRange:
			b = a
		case hi != "":
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, false
			}
		}
		out = append(out, [2]int{a, b})
	}
	return out, true
}

func inRanges(ranges [][2]int, n int) bool {
	for _, r := range ranges {
		if n >= r[0] && (r[1] == 0 || n <= r[1]) {
			return true
		}
	}
	return false
}
