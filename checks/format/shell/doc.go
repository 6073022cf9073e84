// Package shell reads bash scripts statically, on the parser behind shfmt
// (mvdan.cc/sh/v3/syntax, bash variant).
//
// Parse turns a script into the facts the checks reason about: every simple
// command wherever it sits (functions, if/elif/else and case arms, loops,
// pipelines, && and || lists, subshells, command and process substitutions,
// and literal `bash -c`/`sh -c`/`eval` strings and static heredocs fed to a
// shell, which are parsed too), with its words, redirections, heredocs,
// enclosing function, the stack of conditions it runs under and the working
// directory it runs in; every variable assignment (plain, prefix, export,
// declare/local/readonly/typeset, arrays, +=, read targets, for-loop
// variables) with the same context. Queries answer what a variable may hold
// at a command, which commands run a program, and the --flag value /
// NAME=value settings a script writes.
//
// It never executes anything, never reads another file (`source` and `.`
// are reported with their argument; resolving repository paths is the
// caller's business) and never consults the environment: a value that only
// the environment could supply is reported as such (Word.FromEnv), never
// guessed.
//
// A script that does not parse is an *Error with file:line:col and the
// parser's reason, and no partial result: the caller fails closed on it. So
// is a literal shell string inside it that does not parse, and a script past
// the bounds that keep the work linear (MaxBytes, brackets or statements
// nested more than 1,000 deep, more variable lookups than any real script
// needs).
//
// One construct bash accepts and the parser rejects is handled: a subscript
// of an associative array that is not valid arithmetic (`[1024:8:4]=3` in a
// `declare -A` literal, `${m[${A}:${B}]}`), which bash reads as a string and
// the parser as arithmetic. The source is parsed again with the offending
// bytes of such a subscript (outside its $-expansions) replaced by `_`, so
// lengths, lines and columns stay the same, and every text reported is cut
// from the original source. The retry is kept only when every rewritten
// subscript belongs to an array the script declares with -A; otherwise the
// original error stands.
package shell
