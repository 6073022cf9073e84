package repoconfig

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// constraints checks the decoded values against the key table. spec is the
// nearest table entry above v; values set by the defaults satisfy the table
// (a test makes sure), so a violation always has a place in the file.
func (w *walker) constraints(v reflect.Value, specPath, path string, spec *keySpec) []Problem {
	var out []Problem
	bad := func(p string, m meaning) {
		pr := problem(0, 0, p, m)
		for q := p; q != ""; q = parentPath(q) {
			if k := w.idx[q]; k != nil {
				pr.Line, pr.Column = k.Line, k.Column
				break
			}
		}
		out = append(out, pr)
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Type() == nodeType {
		return nil // the preset validates its own settings
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if strings.Contains(opts, "inline") {
				out = append(out, w.constraints(v.Field(i), specPath, path, spec)...)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			sp := join(specPath, name)
			s := w.specs[sp]
			if s == nil {
				s = spec
			}
			out = append(out, w.constraints(v.Field(i), sp, join(path, name), s)...)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			ks := fmt.Sprint(k.Interface())
			p := join(path, ks)
			if spec != nil && spec.keyRE != nil && !spec.keyRE.MatchString(ks) {
				bad(p, meaning{fmt.Sprintf("%s: %s is not %s", path, quoteIfNeeded(ks), spec.KeyMeans.EN),
					fmt.Sprintf("%s：%s 不是%s", path, quoteIfNeeded(ks), spec.KeyMeans.ZH)})
				continue
			}
			sp := join(specPath, "*")
			s := spec
			if w.specs[sp] != nil {
				s = w.specs[sp]
			}
			out = append(out, w.constraints(v.MapIndex(k), sp, p, s)...)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			out = append(out, w.constraints(v.Index(i), specPath, fmt.Sprintf("%s[%d]", path, i), spec)...)
		}
	case reflect.String:
		if spec == nil {
			return nil
		}
		s := v.String()
		if len(spec.Enum) > 0 && !contains(spec.Enum, s) {
			e := enumText(spec.Enum)
			bad(path, meaning{fmt.Sprintf("%s must be %s, not %q", path, e.EN, s), fmt.Sprintf("%s 必须是%s，而不是 %q", path, e.ZH, s)})
		}
		if spec.re != nil && !spec.re.MatchString(s) {
			bad(path, meaning{fmt.Sprintf("%s must be %s, not %q", path, spec.Means.EN, s), fmt.Sprintf("%s 必须是%s，而不是 %q", path, spec.Means.ZH, s)})
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		if spec == nil {
			return nil
		}
		var x float64
		if v.Kind() == reflect.Float64 {
			x = v.Float()
		} else {
			x = float64(v.Int())
		}
		if !math.IsNaN(spec.Min) && x < spec.Min || !math.IsNaN(spec.Max) && x > spec.Max || math.IsNaN(x) {
			r := rangeText(spec.Min, spec.Max)
			bad(path, meaning{fmt.Sprintf("%s must be %s, not %v", path, r.EN, x), fmt.Sprintf("%s 必须%s，而不是 %v", path, r.ZH, x)})
		}
	}
	return out
}

var plainRE = regexp.MustCompile(`^[A-Za-z0-9_./@-]+$`)

// quoteIfNeeded quotes s unless it is a plain token.
func quoteIfNeeded(s string) string {
	if plainRE.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func enumText(enum []string) meaning {
	q := make([]string, 0, len(enum))
	empty := false
	for _, e := range enum {
		if e == "" {
			empty = true
			continue
		}
		q = append(q, e)
	}
	var m meaning
	switch len(q) {
	case 1:
		m = meaning{q[0], " " + q[0]}
	case 2:
		m = meaning{q[0] + " or " + q[1], " " + q[0] + " 或 " + q[1]}
	default:
		m = meaning{"one of " + strings.Join(q, ", "), " " + strings.Join(q, "、") + " 之一"}
	}
	if empty {
		m.EN += " (or empty)"
		m.ZH += "（或留空）"
	}
	return m
}

func rangeText(lo, hi float64) meaning {
	l, h := number(lo), number(hi)
	switch {
	case math.IsNaN(hi):
		return msg("at least %s", "至少为 %s", l)
	case math.IsNaN(lo):
		return msg("at most %s", "至多为 %s", h)
	}
	return msg("between %s and %s", "在 %s 到 %s 之间", l, h)
}

// number writes a bound as a reader writes it: whole numbers in full
// (8388608, not 8.388608e+06).
func number(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
