// Command weft is the Weft model checker's command line: check a model
// (parse, type-check, explore its interleavings), format it, replay a
// counterexample, and run the benchmark suite.
//
//	weft check FILE [--algo dfs|sdpor|qpor|optimal] [--k N] [--timeout D] [--max-executions N] [--json]
//	weft replay FILE [--bug N | --trace TRACE.json]
//	weft fmt [-w] FILE…
//	weft bench [--suite paper] [--algos sdpor] [--timeout D] [--csv F] [--json F]
//	weft version | help
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
)

// version is the release of the language and tool.
const version = "0.1.0 (language version 1)"

// Exit codes of every subcommand.
const (
	exitOK    = 0 // no bug found / success
	exitBug   = 1 // a bug was found (check), or formatting differs (fmt -l)
	exitUsage = 2 // a usage, syntax or type error
)

// gcPercent is the collector's setting for the CLI (Go's default is 100),
// unless GOGC says otherwise.
const gcPercent = 200

func main() {
	if os.Getenv("GOGC") == "" {
		// The unfolding-based modes keep most of what they allocate for
		// a while; collecting half as often costs about a third more
		// memory (DISP(5,5) optimal: 258 -> 333 MB) and saves up to 10%
		// of the time (best of 3, optimal: MPAT(6) 2.05 -> 1.85 s,
		// POL(8,3) 0.256 -> 0.236 s, DISP(5,4) unchanged).
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
		return cmdFmt(rest, stdout, stderr)
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "weft", version)
		return exitOK
	case "help", "--help", "-help", "-h":
		usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "weft: unknown command %q\n\n", cmd)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Weft checks concurrent models: every interleaving, with partial-order reduction.

Usage:
  weft check FILE [flags]      parse, type-check and explore FILE; report bugs
      --algo dfs|sdpor|qpor|optimal  exploration (default sdpor)
      --k N                      k of k-partial alternatives for qpor (default 1)
      --timeout D                stop after D (e.g. 30s, 2m); the result says it is incomplete
      --max-executions N         stop after N executions
      --max-steps N              visible steps per execution before a step-bound bug (default 100000)
      --json                     print one JSON object (the CI contract)
  weft replay FILE [flags]     re-execute a counterexample step by step, with the state after each step
      --bug N                    the N-th bug (1-based) that 'weft check' reports (default 1)
      --trace FILE.json          a bug from the JSON that 'weft check --json' printed
      --algo, --max-steps        as for check
  weft fmt [-w] [-l] FILE…     print FILE in the canonical layout (-w: rewrite it; -l: list files that differ)
  weft bench [flags]           run the benchmark suite and print a table like the QPOR paper's
      --suite paper|quick|fig1|all  which instances of benchmarks/ (default paper)
      --algos sdpor,dfs,…        modes to compare (default sdpor)
      --timeout D                per run (default 120s)
      --csv FILE, --json FILE    also write the rows there
  weft version                 print the version
  weft help                    print this help

Exit codes: 0 no bug, 1 a bug was found, 2 a usage, syntax or type error.
`)
}
