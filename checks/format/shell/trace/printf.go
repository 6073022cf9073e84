package trace

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// bashPrintf formats as bash's printf builtin: the format is reused while
// arguments remain, a missing argument is empty (or zero for a number),
// escapes in the format are expanded, and a number that does not parse is
// zero (bash also complains; the dry run does not need the complaint).
func bashPrintf(format string, args []string) string {
	var b strings.Builder
	for first := true; first || len(args) > 0; first = false {
		used := 0
		next := func() (string, bool) {
			if used < len(args) {
				used++
				return args[used-1], true
			}
			return "", false
		}
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\':
					b.WriteByte('\\')
				case '"':
					b.WriteByte('"')
				default:
					b.WriteByte('\\')
					b.WriteByte(format[i])
				}
			case c == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%':
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
					j++
				}
				if j >= len(format) {
					b.WriteString(format[i:])
					i = len(format)
					continue
				}
				spec, verb := format[i+1:j], format[j]
				a, _ := next()
				b.WriteString(formatOne(spec, verb, a))
				i = j
			default:
				b.WriteByte(c)
			}
		}
		if used == 0 {
			break
		}
		args = args[used:]
	}
	return b.String()
}

func formatOne(spec string, verb byte, a string) string {
	switch verb {
	case 'd', 'i':
		n, _ := strconv.ParseInt(strings.TrimSpace(a), 0, 64)
		return fmt.Sprintf("%"+spec+"d", n)
	case 'x', 'X', 'o':
		n, _ := strconv.ParseInt(strings.TrimSpace(a), 0, 64)
		return fmt.Sprintf("%"+spec+string(verb), n)
	case 'f', 'F', 'e', 'E', 'g', 'G':
		f, _ := strconv.ParseFloat(strings.TrimSpace(a), 64)
		return fmt.Sprintf("%"+spec+string(verb), f)
	case 'c':
		if a == "" {
			return ""
		}
		return a[:1]
	case 'q':
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return a
		}
		return fmt.Sprintf("%"+spec+"s", q)
	case 'b':
		return bashPrintf(strings.ReplaceAll(a, "%", "%%"), nil)
	}
	return fmt.Sprintf("%"+spec+"s", a)
}
