package checklist

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// AddedLines is row 4: no line the PR adds, in the files the item names,
// matches its forbid patterns, unless the default branch holds a waiver
// for the PR (<waivers>/<PR number>.md). A file whose diff GitHub does not
// show cannot be read: the item is then unverified unless a file that can
// be read already breaks it.
var AddedLines = verifierRow(4, checks.T("Added lines", "新增行"), KindLines, judgeLines)

func judgeLines(ctx context.Context, pr *checks.PR, it Item) checks.Result {
	if it.Waivers != "" && pr.Number > 0 {
		p := strings.TrimSuffix(it.Waivers, "/") + "/" + strconv.Itoa(pr.Number) + ".md"
		data, err := pr.Source.ReadFile(ctx, pr.DefaultSHA, p)
		switch {
		case err == nil && strings.TrimSpace(string(data)) != "":
			return checks.PassR(checks.T("waived by "+p, "由 "+p+" 豁免"), checks.Evidence{Label: "waiver", Value: p})
		case err != nil && !errors.Is(err, checks.ErrNotFound):
			return unverified("reading the waiver "+p, "读取豁免文件 "+p+" 失败", err)
		}
	}
	res := make([]*regexp.Regexp, 0, len(it.Forbid))
	for _, f := range it.Forbid {
		re, err := regexp.Compile(f)
		if err != nil {
			return unverified("the forbid pattern "+f, "forbid 模式 "+checks.Code(f), err)
		}
		res = append(res, re)
	}
	files, err := pr.Source.Files(ctx)
	if err != nil {
		return unverified("listing the changed files", "列出变更文件失败", err)
	}
	read, unread := 0, ""
	for _, f := range files {
		if f.Status == "removed" || (len(it.Paths) > 0 && !matchAny(it.Paths, f.Path)) {
			continue
		}
		if f.PatchMissing || (f.Patch == "" && f.Additions > 0) {
			// A forbidden line in a file that can be read decides; this
			// one only keeps the item from passing.
			if unread == "" {
				unread = f.Path
			}
			continue
		}
		read++
		for n, line := range strings.Split(f.Patch, "\n") {
			if !strings.HasPrefix(line, "+") || strings.HasPrefix(line, "+++") {
				continue
			}
			for _, re := range res {
				if re.MatchString(line[1:]) {
					return checks.FailR(checks.T(
						fmt.Sprintf("%s adds a line matching %s (diff line %d)", f.Path, re, n+1),
						fmt.Sprintf("%s 新增了匹配 %s 的行（差异第 %d 行）", f.Path, checks.Code(re.String()), n+1)),
						checks.Evidence{Label: "line", Value: f.Path + ": " + strings.TrimSpace(line[1:])})
				}
			}
		}
	}
	if unread != "" {
		return checks.Unverified(checks.T("GitHub shows no diff of "+unread, "GitHub 未显示 "+unread+" 的差异"))
	}
	return checks.PassR(checks.T(
		fmt.Sprintf("no added line in %d file(s) matches the forbidden patterns", read),
		fmt.Sprintf("%d 个文件中没有新增行匹配被禁止的模式", read)))
}
