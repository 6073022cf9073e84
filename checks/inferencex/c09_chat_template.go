package inferencex

import (
	"context"
	"path"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/inferencex/repo"
	"github.com/verdict-bot/verdict/checks/inferencex/repo/changeset"
	"github.com/verdict-bot/verdict/checks/inferencex/serving"
)

// ChatTemplate is row 9: spec-decode configs benchmark through chat
// templates (RULES.md, Check 9).
var ChatTemplate = &checks.Check{
	Number:   9,
	Name:     checks.Text{EN: "Chat template", ZH: "聊天模板"},
	Requires: []checks.Requirement{changeset.Fact},
	Run:      runChatTemplate,
}

func runChatTemplate(ctx context.Context, pr *checks.PR) checks.Result {
	cs, bad := changeset.Readable(ctx, pr)
	if bad != nil {
		return *bad
	}
	var spec []*repo.ConfigEntry
	for _, e := range cs.Affected {
		if e.SpecDecode {
			spec = append(spec, e)
		}
	}
	if len(spec) == 0 {
		if r, bad := cs.SelectionUnread(); bad {
			return r
		}
		return checks.NAR(checks.T("PR affects no spec-decode configuration.", "PR 未涉及任何投机解码配置。"))
	}
	var fail, review, pass findings
	for _, e := range spec {
		eff := cs.Effective[e.Key]
		if e.Agentic {
			judgeAgenticClient(e, eff, &fail, &review, &pass)
			continue
		}
		var recipes, scripts []*repo.EffectiveFile
		for _, f := range eff {
			switch f.Kind {
			case "recipe":
				recipes = append(recipes, f)
			case "script":
				scripts = append(scripts, f)
			}
		}
		switch {
		case len(scripts) > 0:
			judgeScriptClient(e, scripts[0], &fail, &review, &pass)
		case len(recipes) > 0:
			judgeRecipeClient(e, recipes, &fail, &review, &pass)
		case len(cs.DryRuns[e.Key].Head) > 0:
			judgeTracedClient(e, cs.DryRuns[e.Key].Head, &fail, &review, &pass)
		default:
			review.add("no benchmark script or recipe found for spec-decode config "+e.Key, "未找到投机解码配置 "+e.Key+" 的基准测试脚本或配方")
		}
	}
	if r, ok := blocking(&fail, &review); ok {
		return r
	}
	return checks.PassR(pass.text(), pass.ev...)
}

// judgeScriptClient applies the legacy rule: every run_benchmark_serving call
// passes --use-chat-template or --dsv4.
func judgeScriptClient(e *repo.ConfigEntry, f *repo.EffectiveFile, fail, review, pass *findings) {
	if f.Err != "" {
		review.add(f.Path+" could not be read ("+f.Err+")", "无法读取 "+f.Path+"（"+checks.Code(f.Err)+"）")
		return
	}
	calls, bad := 0, 0
	for _, c := range f.Commands {
		w := c.Argv()
		if len(w) == 0 || w[0] != "run_benchmark_serving" {
			continue
		}
		calls++
		if serving.ChatTemplated(w) {
			continue
		}
		bad++
		at := path.Base(f.Path) + ":" + strconv.Itoa(c.Line)
		fail.add(at+" runs run_benchmark_serving without --use-chat-template (config "+e.Key+")",
			at+" 调用 run_benchmark_serving 时未使用 --use-chat-template（配置 "+e.Key+"）",
			checks.Evidence{Label: repo.Loc(f.Path, c.Line), Value: c.FirstLine()})
	}
	switch {
	case calls == 0:
		review.add(e.Key+": "+f.Path+" has no run_benchmark_serving call; the benchmark client is unknown",
			e.Key+"："+f.Path+" 中没有 run_benchmark_serving 调用，基准测试客户端未知", checks.Evidence{Label: f.Path, Value: "no run_benchmark_serving"})
	case bad == 0:
		pass.add(e.Key+" benchmark uses --use-chat-template", e.Key+" 基准测试使用 --use-chat-template", checks.Evidence{Label: e.Key, Value: f.Path})
	}
}

// judgeRecipeClient looks for an explicit chat endpoint or chat-template setting in
// the recipes' benchmark section.
func judgeRecipeClient(e *repo.ConfigEntry, rs []*repo.EffectiveFile, fail, review, pass *findings) {
	for _, f := range rs {
		if f.Err != "" {
			review.add(f.Path+" could not be read ("+f.Err+")", "无法读取 "+f.Path+"（"+checks.Code(f.Err)+"）", checks.Evidence{Label: f.Path, Value: f.Err})
		}
	}
	raw, chat := serving.ClientSelection(rs)
	switch {
	case raw != "" && chat == "":
		fail.add(e.Key+" benchmarks raw completions without a chat template ("+raw+")",
			e.Key+" 使用原始补全（`completions`）接口且未使用聊天模板（"+raw+"）")
	case chat != "":
		pass.add(e.Key+" benchmark uses a chat template ("+chat+")", e.Key+" 基准测试使用聊天模板（"+chat+"）")
	default:
		review.add(e.Key+": the recipe's benchmark client sets no chat endpoint or chat template; client unknown",
			e.Key+"：配方的基准测试客户端未设置聊天接口或聊天模板，客户端未知")
	}
}

// judgeAgenticClient reads what an agentic config's replay client asks
// for: the trace replay goes through /v1/chat/completions unless a client
// setting of its script, helpers or recipe's benchmark section selects raw
// completions without a chat template. Files that could not be read leave
// the client unknown.
func judgeAgenticClient(e *repo.ConfigEntry, eff []*repo.EffectiveFile, fail, review, pass *findings) {
	raw, chat := serving.ClientSelection(eff)
	if raw != "" && chat == "" {
		fail.add(e.Key+" replays agentic traces through raw completions without a chat template ("+raw+")",
			e.Key+" 通过原始补全（`completions`）接口回放智能体轨迹且未使用聊天模板（"+raw+"）",
			checks.Evidence{Label: e.Key, Value: raw})
		return
	}
	if t, ev, bad := changeset.UnreadEffective(eff); bad {
		review.add(e.Key+": the replay client is unknown: "+t.EN, e.Key+"：回放客户端未知："+t.ZH, ev...)
		return
	}
	// The reason is the same in both layouts; the evidence says which
	// setting decided.
	decided := "no client setting selects raw completions"
	if chat != "" {
		decided = "chat endpoint or template: " + chat
	}
	pass.add(e.Key+" replays agentic traces through /v1/chat/completions (aiperf)", e.Key+" 通过 /v1/chat/completions（aiperf）回放智能体轨迹",
		checks.Evidence{Label: e.Key + " replay client", Value: decided})
}

// judgeTracedClient holds the benchmark clients a config's dry run starts
// (a multi-node job, which has no benchmark script of its own, reaches its
// client through the cluster's job script) to the same rule: each passes
// --use-chat-template or --dsv4.
func judgeTracedClient(e *repo.ConfigEntry, cmds []changeset.DryCommand, fail, review, pass *findings) {
	calls, bad := 0, 0
	var first changeset.DryCommand
	for _, c := range cmds {
		w := strings.Fields(c.Text)
		if !serving.BenchmarkClient(w) {
			continue
		}
		if calls++; calls == 1 {
			first = c
		}
		if serving.ChatTemplated(w) {
			continue
		}
		bad++
		at := path.Base(c.File) + ":" + strconv.Itoa(c.Line)
		fail.add(at+" runs the benchmark client without --use-chat-template in the dry run (config "+e.Key+")",
			at+" 在试运行中调用基准测试客户端时未使用 --use-chat-template（配置 "+e.Key+"）",
			checks.Evidence{Label: repo.Loc(c.File, c.Line), Value: checks.Quote(c.Text, 200)})
	}
	switch {
	case calls == 0:
		review.add(e.Key+": its dry run starts no benchmark client; the client is unknown",
			e.Key+"：其试运行未启动基准测试客户端，客户端未知", checks.Evidence{Label: e.Key, Value: "no benchmark client in the dry run"})
	case bad == 0:
		pass.add(e.Key+" benchmark uses --use-chat-template (dry run)", e.Key+" 基准测试使用 --use-chat-template（试运行）",
			checks.Evidence{Label: repo.Loc(first.File, first.Line), Value: checks.Quote(first.Text, 200)})
	}
}
