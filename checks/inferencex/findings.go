package inferencex

import (
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// findings collects one-line messages in both languages plus evidence, for
// rows that report every problem they find.
type findings struct {
	en, zh []string
	ev     []checks.Evidence
}

func (f *findings) add(en, zh string, ev ...checks.Evidence) {
	for _, x := range f.en {
		if x == en {
			return
		}
	}
	f.en = append(f.en, en)
	f.zh = append(f.zh, zh)
	f.ev = append(f.ev, ev...)
}

// note records evidence without a message.
func (f *findings) note(ev ...checks.Evidence) { f.ev = append(f.ev, ev...) }

func (f *findings) empty() bool { return len(f.en) == 0 }

// text joins the findings, root issue first, as one sentence.
func (f *findings) text() checks.Text {
	return checks.Text{EN: sentence(strings.Join(f.en, "; ")), ZH: sentenceZH(strings.Join(f.zh, "；"))}
}

// blocking turns collected findings into the row's result: any failure wins
// (with the review items' evidence kept), then anything needing review.
func blocking(fail, review *findings) (checks.Result, bool) {
	switch {
	case !fail.empty():
		return checks.FailR(fail.text(), append(fail.ev, review.ev...)...), true
	case !review.empty():
		return checks.ReviewR(review.text(), review.ev...), true
	}
	return checks.Result{}, false
}

// sentence ends s with a period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// sentenceZH ends s with a Chinese full stop.
func sentenceZH(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, "。") {
		return s
	}
	return s + "。"
}

func countNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
