package render

import (
	"strings"
	"testing"
)

func TestConfigErrorMarkdown(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	c := ConfigError{
		File: ".github/verdict.yml", Branch: "main", SHA: sha,
		FileURL: "https://github.com/SemiAnalysisAI/InferenceX/blob/" + sha + "/.github/verdict.yml",
		Problems: []ConfigProblem{
			{Line: 6, EN: "unknown key sign_off_phrase (did you mean signoff_phrase?)", ZH: "未知的键 sign_off_phrase（是否想写 signoff_phrase？）"},
			{Line: 9, EN: `core_team must be a GitHub handle such as @login or @org/team, not "@x y</details>"`, ZH: `core_team 必须是GitHub 账号或团队，而不是 "@x y</details>"`},
			{EN: "the file is 300000 bytes, over the 262144-byte limit", ZH: "文件大小为 300000 字节，超过 262144 字节的上限"},
		},
	}
	body, err := ConfigErrorMarkdown(c)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "config_error", body)
	if !strings.HasPrefix(body, ConfigErrorMarker+"\n") {
		t.Errorf("body does not start with its marker")
	}
	if strings.Contains(body, "@x") || strings.Contains(body, "@login") || strings.Count(body, "</details>") != 1 {
		t.Errorf("quoted text can mention someone or close the Chinese block:\n%s", body)
	}

	many := c
	many.Problems = nil
	for i := 1; i <= maxConfigProblems+3; i++ {
		many.Problems = append(many.Problems, ConfigProblem{Line: i, EN: "unknown key x", ZH: "未知的键 x"})
	}
	body, err = ConfigErrorMarkdown(many)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "… and 3 more.") || !strings.Contains(body, "另有 3 处问题") || strings.Contains(body, "#L21") {
		t.Errorf("problem list not capped:\n%s", body)
	}

	for name, bad := range map[string]ConfigError{
		"short sha":   {File: c.File, Branch: "main", SHA: "abc", Problems: c.Problems},
		"no problems": {File: c.File, Branch: "main", SHA: sha},
		"bad link":    {File: c.File, Branch: "main", SHA: sha, FileURL: "javascript:alert(1)", Problems: c.Problems},
		"bad file":    {File: "a b`", Branch: "main", SHA: sha, Problems: c.Problems},
	} {
		if _, err := ConfigErrorMarkdown(bad); err == nil {
			t.Errorf("%s: rendered without error", name)
		}
	}
}
