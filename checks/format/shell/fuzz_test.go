package shell

import (
	"bytes"
	"testing"
)

func FuzzParseScript(f *testing.F) {
	seeds := []string{
		"read -r -a xs <<< \"$v\"\n",
		"f() {\n cat <<-EOF\n\tx $A\n\tEOF\n}\n",
		"git clone https://h/x/Mooncake.git && cd Mooncake && bash dependencies.sh\n",
		"if [ \"$EVAL_ONLY\" = 1 ]; then S=a; else S=b; fi; run --s \"$S\"\n",
		"D=$(python3 -c 'import sglang,os;print(os.path.dirname(sglang.__file__))'); sed -i s/a/b/ \"$D/x.py\"\n",
		"declare -A M=([a:b]=1); echo \"${M[${X}:y]:-2}\"\n",
		"A=(--tp 8); A+=(--ep 2); cmd \"${A[@]}\" ${B:=3}\n",
		"bash -c 'eval \"sh -c true\"'; cat <<'E' | bash\ncd /x\nE\n",
		"pushd /a; popd; cd -; cd \"$(dirname \"$0\")/..\"; source ./lib.sh\n",
		"case $x in a) X=1;; *) X=2;; esac; for i in $X; do echo ${i}; done\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, err := Parse("fuzz.sh", src)
		if err != nil {
			if sc != nil {
				t.Fatal("partial result with an error")
			}
			return
		}
		lines := bytes.Count(src, []byte("\n")) + 1
		prev := -1
		for _, c := range sc.Commands {
			if c.start < prev {
				t.Fatalf("commands out of order at %q", c.Text)
			}
			prev = c.start
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("command %q on line %d of %d", c.Text, c.Line, lines)
			}
			for _, w := range c.Args {
				for _, v := range w.Vars {
					sc.Values(v, &c.Site)
					sc.Exported(v, &c.Site)
				}
				sc.Path(w, c)
			}
			c.Program()
			c.Outputs()
			c.Flags()
		}
		sc.Settings()
		sc.Sources()
	})
}
