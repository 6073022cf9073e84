package checks

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Run executes every enabled check of the registry against pr and returns the
// finalized rows in ascending check order. Checks run concurrently; a check
// listing others in After starts once they have finished. A panicking check
// becomes a FAIL row instead of taking the verification down.
func Run(ctx context.Context, reg *Registry, pr *PR) []Outcome {
	cs := reg.Checks()
	done := map[int]chan struct{}{}
	for _, c := range cs {
		done[c.Number] = make(chan struct{})
	}
	out := make([]Outcome, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func(i int, c Check) {
			defer wg.Done()
			defer close(done[c.Number])
			for _, d := range c.After {
				if ch, ok := done[d]; ok && d != c.Number {
					select {
					case <-ch:
					case <-ctx.Done():
					}
				}
			}
			r := runOne(ctx, c, pr)
			pr.setPrior(c.Number, r)
			out[i] = Outcome{Number: c.Number, Name: c.Name, Advisory: c.Advisory, Result: r}
		}(i, c)
	}
	wg.Wait()
	sort.SliceStable(out, func(a, b int) bool { return out[a].Number < out[b].Number })
	return out
}

func runOne(ctx context.Context, c Check, pr *PR) (r Result) {
	if !pr.Settings.Enabled(c.Number) {
		return c.Finalize(NAR(T("Disabled by this repository's configuration.", "已由本仓库配置禁用。")))
	}
	if err := ctx.Err(); err != nil {
		return c.Finalize(Unverified(T("verification was cancelled: "+err.Error(), "验证已取消："+err.Error())))
	}
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("internal error in check %d: %v", c.Number, p)
			r = c.Finalize(Unverified(T(msg, "检查内部错误："+fmt.Sprint(p))))
		}
	}()
	return c.Finalize(c.Run(ctx, pr))
}
