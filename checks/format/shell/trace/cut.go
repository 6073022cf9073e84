package trace

import (
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
	sc, ok := r.lines(ctx, hc, files)
	if !ok {
		return status(1)
	}
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

// paste runs paste as GNU paste does for one input (standard input or a
// file): with -s its lines joined by the -d delimiters in turn (a tab by
// default), else the lines as they are.
func (r *run) paste(ctx context.Context, hc interp.HandlerContext, args []string) error {
	serial, delims := false, "\t"
	var files []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-s" || a == "--serial":
			serial = true
		case strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "--delimiters"):
			v := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(a, "--delimiters"), "-d"), "=")
			if v == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			delims = v
		case len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "sd") == "":
			// A cluster: -sd, (its value follows) or -ds.
			serial = serial || strings.Contains(a, "s")
			if strings.HasSuffix(a, "d") && i+1 < len(args) {
				i++
				delims = args[i]
			}
		case strings.HasPrefix(a, "-s") && len(a) > 2 && a[2] == 'd':
			serial, delims = true, a[3:] // -sd,
		default:
			files = append(files, a)
		}
	}
	if len(files) > 1 {
		fmt.Fprintln(hc.Stderr, "paste: more than one input is not followed")
		return status(1)
	}
	sc, ok := r.lines(ctx, hc, files)
	if !ok {
		return status(1)
	}
	var b strings.Builder
	n := 0
	for sc.Scan() {
		if !serial {
			fmt.Fprintln(hc.Stdout, sc.Text())
			continue
		}
		if n > 0 && delims != "" {
			b.WriteByte(delims[(n-1)%len(delims)])
		}
		b.WriteString(sc.Text())
		n++
	}
	if serial {
		fmt.Fprintln(hc.Stdout, b.String())
	}
	return nil
}
