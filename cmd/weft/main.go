// Command weft is the Weft model checker's command line: check models
// (parse, type-check, explore their interleavings), format them, replay a
// counterexample, serve editors (language server, replay debugger), and
// run the benchmark suite.
//
//	weft check [flags] FILE|DIR|DIR/... …
//	weft replay FILE [--schedule S | --bug N | --trace TRACE.json]
//	weft fmt [-w|-l] [FILE|DIR|DIR/... …]
//	weft ics FILE [--json]
//	weft lsp [--stdio]
//	weft dap [--stdio]
//	weft bench [--suite paper] [--algos sdpor] [--timeout D] [--csv F] [--json F]
//	weft version | help [COMMAND]
//
// Exit codes (every subcommand): 0 success (check: every execution
// explored, no bug), 1 a bug was found, 2 a usage, syntax or type error
// or an unreadable file, 3 the check ended incomplete with no bug found
// (time, execution, bug or memory budget, interruption), 4 an internal
// error of weft. See docs/cli.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is the release of the language and tool.
const version = "0.2.0 (language version 1)"

// Exit codes of every subcommand.
const (
	exitOK         = 0 // no bug found and the check was complete / success
	exitBug        = 1 // a bug was found (check, replay)
	exitUsage      = 2 // a usage, syntax or type error, or an unreadable file
	exitIncomplete = 3 // no bug found, but not every execution was explored
	exitInternal   = 4 // weft itself failed (a crash: please report it)
)

// gcPercent is the collector's setting for the CLI (Go's default is 100),
// unless GOGC says otherwise.
const gcPercent = 200

func main() {
	if !isServer(os.Args[1:]) {
		if code, supervised := superviseSelf(); supervised {
			os.Exit(code)
		}
	}
	if os.Getenv("GOGC") == "" {
		// The unfolding-based modes keep most of what they allocate for
		// a while; collecting half as often costs about a third more
		// memory (DISP(5,5) optimal: 258 -> 333 MB) and saves up to 10%
		// of the time (best of 3, optimal: MPAT(6) 2.05 -> 1.85 s,
		// POL(8,3) 0.256 -> 0.236 s, DISP(5,4) unchanged).
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "weft: internal error: %v (this is a bug in weft; please report it)\n%s", r, debug.Stack())
			code = exitInternal
		}
	}()
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "check":
		return cmdCheck(ctx, rest, stdout, stderr)
	case "replay":
		return cmdReplay(ctx, rest, stdout, stderr)
	case "fmt":
		return cmdFmt(rest, os.Stdin, stdout, stderr)
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "ics":
		return cmdIcs(ctx, rest, stdout, stderr)
	case "lsp":
		return cmdLSP(ctx, rest, os.Stdin, stdout, stderr)
	case "dap":
		return cmdDAP(ctx, rest, os.Stdin, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "weft", version)
		return exitOK
	case "help", "--help", "-help", "-h":
		if len(rest) == 0 {
			usage(stdout)
			return exitOK
		}
		if _, ok := commandHelp[rest[0]]; !ok {
			fmt.Fprintf(stderr, "weft help: unknown command %q\n\n", rest[0])
			usage(stderr)
			return exitUsage
		}
		commandUsage(stdout, rest[0])
		return exitOK
	}
	fmt.Fprintf(stderr, "weft: unknown command %q\n\n", cmd)
	usage(stderr)
	return exitUsage
}

// commandHelp is each command's synopsis and flags.
var commandHelp = map[string]string{
	"check": `usage: weft check [flags] FILE|DIR|DIR/... …

Parses, type-checks and explores each model: a FILE; the .weft files of a
DIR; with DIR/..., those of DIR and every directory below it. Reports
every assertion failure, deadlock, runtime error, data race and
step-bound bug found, each with a trace to replay.

Flags:
  --algo dfs|sdpor|qpor|optimal  exploration (default sdpor)
  --k N                 k of k-partial alternatives, qpor only (default 1)
  --timeout D           time budget per model (default 5m; 0: none)
  --max-executions N    stop after N executions (default: no limit)
  --max-steps N         visible steps per execution before a step-bound bug (default 100000)
  --max-bugs N          stop at the N-th distinct bug (default: find them all)
  --max-memory SIZE     memory budget, e.g. 2GB (default: a quarter of the machine's memory);
                        reaching it ends the check incomplete
  --json                print JSON: one object for one FILE, an array for several models
  --full-trace          with --json, keep every step of long traces
  --quiet               no progress and no "found:" lines on stderr

Exit codes: 0 every execution explored and no bug found; 1 a bug found;
2 a usage, syntax or type error or an unreadable file; 3 no bug found
but the exploration was incomplete (a budget ran out, or interrupted);
4 an internal error. With several models, the worst: 4, 2, 1, 3, 0.
`,
	"replay": `usage: weft replay FILE (--schedule S | --bug N [check flags] | --trace CHECK.json [--bug N]) [--full-state]

Re-executes one counterexample of the model FILE step by step and shows
what each step changed (shared variables, and the locals of the thread
that moved).

  --schedule S      the thread index (0-based) of each step, runs written
                    THREAD*COUNT: 0*3,1,2*10 (what 'weft check' prints)
  --bug N           re-run the check with the given flags until its N-th
                    bug, and replay that one
  --trace F.json    a bug from the JSON of 'weft check --json' (bug 1, or --bug N)
  --full-state      show every variable after every step, arrays in full

Exit codes: 1 the bug was reproduced, 2 a usage error or a schedule that
does not fit the model, 4 an internal error.
`,
	"lsp": `usage: weft lsp [--stdio]

Serves the Language Server Protocol over stdin and stdout: diagnostics as
you type, checks in the background (a quick one after a pause in typing,
longer ones while the editor stays idle), status, code lenses, hover.
Settings come from the client (see docs/editors.md). Logs go to stderr.`,
	"dap": `usage: weft dap [--stdio]

Serves the Debug Adapter Protocol over stdin and stdout: the replay
debugger. A launch request names a counterexample, inline ("trace": what
the language server's weft.trace answers) or saved ("traceFile": the JSON
of 'weft check --json', "bug": N, "program": the model if not the one the
report names); the session then steps through it forward and back, with
the threads, the statement each runs, and the shared variables, locals
and locks after each step. See docs/editors.md. Logs go to stderr.
`,
	"fmt": `usage: weft fmt [-w | -l] [FILE|DIR|DIR/... …]

Prints models in the canonical layout. Without arguments, formats standard
input to standard output. A DIR means its .weft files; DIR/... those below
it too.

  -w    rewrite the files whose layout differs
  -l    list the files whose layout differs

Exit codes: 0 success (whether or not files differ, as gofmt), 2 a
syntax error or an unreadable file.
`,
	"bench": `usage: weft bench [flags]

Runs the benchmark suite (benchmarks/) and prints a table like the QPOR
paper's.

  --suite paper|quick|fig1|all  which instances (default paper)
  --algos sdpor,dfs,…         modes to compare (default sdpor)
  --timeout D                 per run (default 120s)
  --csv FILE, --json FILE     also write the rows there
`,
	"ics": `usage: weft ics FILE [--json]

Prints the independence constraints of the model FILE: each pair of
statements of different threads that may interfere (their positions,
threads and text, what each reads and writes, why they are dependent)
and the conditions under which they commute, in Weft syntax, with the
rule or synthesis they come from ("engine" marks those the cdpor
exploration may use). A local of the other statement's thread whose
name clashes is written other.NAME.

  --json    print JSON (see docs/cli.md)

Exit codes: 0 success, 2 a usage, syntax or type error or an unreadable
file, 4 an internal error.
`,
	"version": "usage: weft version\n\nPrints the version of weft and of its language.\n",
	"help":    "usage: weft help [COMMAND]\n\nPrints the commands, or one command's flags.\n",
}

// commandUsage prints one command's help.
func commandUsage(w io.Writer, cmd string) {
	fmt.Fprint(w, commandHelp[cmd])
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Weft checks concurrent models: every interleaving, with partial-order reduction.

Usage:
  weft check [flags] FILE|DIR|DIR/... …   explore the models; report bugs
  weft replay FILE --schedule S | --bug N | --trace F.json
                                          re-execute a counterexample step by step
  weft fmt [-w|-l] [FILE|DIR|DIR/... …]   print models in the canonical layout
  weft ics FILE [--json]                  print the independence constraints of a model
  weft lsp [--stdio]                      serve the Language Server Protocol (editors)
  weft dap [--stdio]                      serve the Debug Adapter Protocol (replay debugger)
  weft bench [flags]                      run the benchmark suite
  weft version                            print the version
  weft help [COMMAND]                     print this help, or a command's

Exit codes: 0 verified / success, 1 a bug was found, 2 a usage, syntax or
type error, 3 incomplete with no bug found, 4 an internal error.
Run 'weft help check' for the flags of check.
`)
}
