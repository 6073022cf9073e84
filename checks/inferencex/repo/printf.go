package repo

import (
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks/format/shell"
)

// printfValue reads a word that is exactly one $(printf FORMAT ARG…)
// substitution, as scripts build JSON settings
// (SPEC_CONFIG=$(printf '{"num_speculative_tokens":%d}' "$N")): the format
// applied to the arguments' values where the script decides them. %s of an
// argument the script does not decide keeps the argument as written; a
// numeric conversion of one, or a format this reader does not know, gives
// ok false.
func printfValue(sc *shell.Script, w shell.Word) (string, bool) {
	t := strings.TrimSuffix(strings.TrimPrefix(w.Text, `"`), `"`)
	if len(w.Subst) != 1 || !strings.HasPrefix(t, "$(") || !strings.HasSuffix(t, ")") {
		return "", false
	}
	c := w.Subst[0]
	prog, args := c.Program()
	if prog != "printf" || len(args) == 0 || !args[0].Static || strings.HasPrefix(args[0].Value, "-") {
		return "", false
	}
	vals := make([]string, len(args)-1)
	for i, a := range args[1:] {
		vals[i] = wordValueAt(sc, a, &c.Site)
	}
	return formatPrintf(args[0].Value, vals)
}

// formatPrintf applies a printf format to string arguments as bash does for
// the conversions %s %d %i %f %e %g (with flags, width and precision) and
// the escapes \n \t \\ \" of the format. Arguments left over, or a format
// that consumes none while arguments remain, are refused rather than
// guessed (bash would repeat the format).
func formatPrintf(format string, args []string) (string, bool) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(format); i++ {
		ch := format[i]
		switch {
		case ch == '\\' && i+1 < len(format):
			i++
			switch format[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"', '\'':
				b.WriteByte(format[i])
			default:
				return "", false
			}
		case ch != '%':
			b.WriteByte(ch)
		case i+1 < len(format) && format[i+1] == '%':
			b.WriteByte('%')
			i++
		default:
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ 0#.0123456789", format[j]) >= 0 {
				j++
			}
			if j >= len(format) || next >= len(args) {
				return "", false
			}
			spec, verb, arg := format[i+1:j], format[j], args[next]
			next++
			s, ok := convert(spec, verb, arg)
			if !ok {
				return "", false
			}
			b.WriteString(s)
			i = j
		}
	}
	if next != len(args) {
		return "", false
	}
	return b.String(), true
}

// convert formats one argument; only precision is honoured beyond the
// verb (the settings read here carry no widths).
func convert(spec string, verb byte, arg string) (string, bool) {
	prec := -1
	if k := strings.IndexByte(spec, '.'); k >= 0 {
		p, err := strconv.Atoi(spec[k+1:])
		if err != nil {
			return "", false
		}
		prec = p
	} else if strings.Trim(spec, "-") != "" {
		return "", false
	}
	switch verb {
	case 's':
		if prec >= 0 && prec < len(arg) {
			arg = arg[:prec]
		}
		return arg, true
	case 'd', 'i':
		n, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
		if err != nil || prec >= 0 {
			return "", false
		}
		return strconv.FormatInt(n, 10), true
	case 'f', 'e', 'g':
		f, err := strconv.ParseFloat(strings.TrimSpace(arg), 64)
		if err != nil {
			return "", false
		}
		if prec < 0 && verb != 'g' {
			prec = 6
		}
		return strconv.FormatFloat(f, verb, prec, 64), true
	}
	return "", false
}
