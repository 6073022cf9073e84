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
// parser's reason, and no partial result: the caller fails closed on it.
// One construct bash accepts and the parser rejects is handled: an
// associative-array subscript that is not valid arithmetic (`[a:b]=1` in a
// `declare -A` array, `${m[a:b]}`). The parser reads subscripts as
// arithmetic, so the source is parsed again with such a subscript replaced by
// a placeholder of the same length (offsets, lines and columns unchanged, and
// every reported text is cut from the original source); the retry is kept
// only when the array is declared associative (-A) in the script, otherwise
// the original error stands.
package shell
