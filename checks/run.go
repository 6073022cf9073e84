package checks

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Run executes the checks of reg against pr and returns the finalized rows
// in ascending check order. enabled decides by row number which rows run (nil
// runs all); a disabled row renders N/A. Checks run concurrently; a check
// starts once the rows it requires have finished. A panicking check, and one
// that reads a requirement it does not declare, becomes a fail-closed row
// instead of taking the verification down.
func Run(ctx context.Context, reg *Registry, pr *PR, enabled func(number int) bool) []Outcome {
	cs := reg.Checks()
	finished := map[int]chan struct{}{}
	for _, c := range cs {
		finished[c.Number] = make(chan struct{})
	}
	out := make([]Outcome, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func(i int, c *Check) {
			defer wg.Done()
			defer close(finished[c.Number])
			for _, d := range reg.waits[c.Number] {
				select {
				case <-finished[d]:
				case <-ctx.Done():
				}
			}
			r := runOne(ctx, c, pr, enabled == nil || enabled(c.Number))
			pr.setResult(c.Number, r)
			out[i] = Outcome{Number: c.Number, Name: c.Name, Advisory: c.Advisory, Result: r}
		}(i, c)
	}
	wg.Wait()
	sort.SliceStable(out, func(a, b int) bool { return out[a].Number < out[b].Number })
	return out
}

func runOne(ctx context.Context, c *Check, pr *PR, enabled bool) (r Result) {
	if !enabled {
		return c.Finalize(NAR(T("Disabled by this repository's configuration.", "已由本仓库配置禁用。")))
	}
	if err := ctx.Err(); err != nil {
		return c.Finalize(Unverified(T("verification was cancelled: "+err.Error(), "验证已取消："+Code(err.Error()))))
	}
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("internal error in check %d: %v", c.Number, p)
			r = c.Finalize(Unverified(T(msg, "检查内部错误："+fmt.Sprint(p))))
		}
	}()
	n := c.requirement()
	row := &firstError{}
	fr := &frame{owner: fmt.Sprintf("check %d", c.Number), declared: declaredSet(n.requires), row: row}
	r = c.Run(context.WithValue(ctx, frameKey{}, fr), pr)
	if err := row.get(); err != nil {
		return c.Finalize(Unverified(T("internal error: "+err.Error(), "检查内部错误："+Code(err.Error()))))
	}
	return c.Finalize(r)
}
