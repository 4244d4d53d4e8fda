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

	"weft/analysis"
)

// release is the version of the tool.
const release = "0.2.0"

// version is what weft version prints after "weft": the tool's release
// and the version of the language its front end implements.
func version() string {
	return fmt.Sprintf("%s (language version %d)", release, analysis.LanguageVersion)
}

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
		fmt.Fprintln(stdout, "weft", version())
		return exitOK
	case "help", "--help", "-help", "-h":
		if len(rest) == 0 {
			usage(stdout)
			return exitOK
		}
		if _, ok := lookupCommand(rest[0]); !ok {
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
