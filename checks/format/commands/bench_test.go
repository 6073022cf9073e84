package commands

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks"
)

// BenchmarkNewestAuthorized reads the reuse command of a busy PR: 300
// comments of review prose, quoted replies and pasted logs, a tenth of them
// holding a command line, the newest authorized one first from the end.
func BenchmarkNewestAuthorized(b *testing.B) {
	var cs []checks.Comment
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 300; i++ {
		body := "Thanks, looks good overall. One question about the recipe:\n\n> why conc 12?\n\n" +
			"```\n" + strings.Repeat("INFO sglang: step done in 12 ms\n", 20) + "```\n"
		if i%10 == 0 {
			body += "/use " + strconv.Itoa(30123456000+i) + "\n"
		}
		cs = append(cs, checks.Comment{ID: int64(i + 1), Association: "MEMBER", Body: body, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	allowed := []string{"OWNER", "MEMBER", "COLLABORATOR"}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := NewestAuthorized(cs, allowed); !ok {
			b.Fatal("no command")
		}
	}
}

// BenchmarkParseReuseEveryComment is the worst case of the same listing: no
// comment holds a valid command, so every one that mentions /use is parsed.
func BenchmarkParseReuseEveryComment(b *testing.B) {
	body := "Could someone run /use on this?\n\n> /use 1\n\n```\n/use 2\n" + strings.Repeat("log line\n", 20) + "```\n"
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i < 300; i++ {
			if _, err := ParseReuse(body); err != NoCommand {
				b.Fatal(err)
			}
		}
	}
}
