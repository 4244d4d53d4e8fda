package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// command is one subcommand's help: the text around its flags, and the
// function that registers them, the same one the command parses its
// arguments with, so that the help lists exactly the flags it accepts.
type command struct {
	usage string // the synopsis, after "usage: "
	about string // what the command does (paragraphs)
	// flags registers the command's flags on a flag set (nil: none).
	flags func(fs *flag.FlagSet)
	// inherits names a command whose flags this one also takes; the help
	// lists them apart, under inheritTitle.
	inherits     string
	inheritTitle string
	after        string // exit codes and notes, after the flags
}

// lookupCommand returns the help of the subcommand name.
func lookupCommand(name string) (command, bool) {
	switch name {
	case "check":
		return command{
			usage: "weft check [flags] FILE|DIR|DIR/... …",
			about: `Parses, type-checks and explores each model: a FILE; the .weft files of a
DIR; with DIR/..., those of DIR and every directory below it. Reports
every assertion failure, deadlock, runtime error, data race and
step-bound bug found, each with a trace to replay.`,
			flags: func(fs *flag.FlagSet) { new(checkFlags).register(fs) },
			after: `Exit codes: 0 every execution explored and no bug found; 1 a bug found;
2 a usage, syntax or type error or an unreadable file; 3 no bug found
but the exploration was incomplete (a budget ran out, or interrupted);
4 an internal error. With several models, the worst: 4, 2, 1, 3, 0.`,
		}, true
	case "replay":
		return command{
			usage: "weft replay FILE (--schedule S | --bug N [check flags] | --trace CHECK.json [--bug N]) [--full-state]",
			about: `Re-executes one counterexample of the model FILE step by step and shows
what each step changed (shared variables, and the locals of the thread
that moved). --bug N runs the check again, with the flags of weft check
given here, to its end, and replays its N-th bug: the trace that
weft check with those flags reports.`,
			flags:        func(fs *flag.FlagSet) { new(replayFlags).register(fs) },
			inherits:     "check",
			inheritTitle: "The flags of weft check, for --bug N (and --max-steps, --no-spin-wait,\n--spurious-wakeups for --schedule):",
			after: `Exit codes: 1 the bug was reproduced, 2 a usage error or a schedule that
does not fit the model, 4 an internal error.`,
		}, true
	case "fmt":
		return command{
			usage: "weft fmt [-w | -l] [FILE|DIR|DIR/... …]",
			about: `Prints models in the canonical layout. Without arguments, formats standard
input to standard output. A DIR means its .weft files; DIR/... those below
it too.`,
			flags: func(fs *flag.FlagSet) { new(fmtFlags).register(fs) },
			after: `Exit codes: 0 success (whether or not files differ, as gofmt), 2 a
syntax error or an unreadable file.`,
		}, true
	case "ics":
		return command{
			usage: "weft ics FILE [--json] [--no-smt] [--assume-no-overflow]",
			about: `Prints the independence constraints of the model FILE: each pair of
statements of different threads that may interfere (their positions,
threads and text, what each reads and writes, why they are dependent)
and the conditions under which they commute, in Weft syntax, with the
rule or synthesis they come from ("engine" marks those the cdpor
exploration may use). A local of the other statement's thread whose
name clashes is written other.NAME.`,
			flags: func(fs *flag.FlagSet) { new(icsFlags).register(fs) },
			after: `Exit codes: 0 success, 2 a usage, syntax or type error or an unreadable
file, 4 an internal error.`,
		}, true
	case "lsp":
		return command{
			usage: "weft lsp [--stdio]",
			about: `Serves the Language Server Protocol over stdin and stdout: diagnostics as
you type, checks in the background (a quick one after a pause in typing,
longer ones while the editor stays idle), status, code lenses, hover.
Settings come from the client (see docs/editors.md). Logs go to stderr.`,
			flags: func(fs *flag.FlagSet) { new(serverFlags).register(fs) },
		}, true
	case "dap":
		return command{
			usage: "weft dap [--stdio]",
			about: `Serves the Debug Adapter Protocol over stdin and stdout: the replay
debugger. A launch request names a counterexample, inline ("trace": what
the language server's weft.trace answers) or saved ("traceFile": the JSON
of 'weft check --json', "bug": N, "program": the model if not the one the
report names); the session then steps through it forward and back, with
the threads, the statement each runs, and the shared variables, locals
and locks after each step. See docs/editors.md. Logs go to stderr.`,
			flags: func(fs *flag.FlagSet) { new(serverFlags).register(fs) },
		}, true
	case "bench":
		return command{
			usage: "weft bench [flags]",
			about: `Runs a benchmark suite and prints a table like the QPOR paper's, each run
a 'weft check --json' in its own process. The benchmarks are built into
weft (the benchmarks folder of its source); --dir runs those of a folder
instead.`,
			flags: func(fs *flag.FlagSet) { new(benchFlags).register(fs) },
			after: `Exit codes: 0 every run matched the expected trace counts, 1 a run
failed or mismatched, 2 a usage error.`,
		}, true
	case "version":
		return command{usage: "weft version", about: "Prints the version of weft and of the language it checks."}, true
	case "help":
		return command{usage: "weft help [COMMAND]", about: "Prints the commands, or one command's flags."}, true
	}
	return command{}, false
}

// commandUsage prints one command's help; the flags come from their
// definitions.
func commandUsage(w io.Writer, name string) {
	c, ok := lookupCommand(name)
	if !ok {
		return
	}
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.usage, c.about)
	if c.flags != nil {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		c.flags(fs)
		var inherited map[string]bool
		if c.inherits != "" {
			parent, _ := lookupCommand(c.inherits)
			pfs := flag.NewFlagSet(c.inherits, flag.ContinueOnError)
			parent.flags(pfs)
			inherited = map[string]bool{}
			pfs.VisitAll(func(f *flag.Flag) { inherited[f.Name] = true })
		}
		fmt.Fprint(w, "\nFlags:\n")
		writeFlags(w, fs, func(f *flag.Flag) bool { return !inherited[f.Name] })
		if inherited != nil {
			fmt.Fprintf(w, "\n%s\n", c.inheritTitle)
			writeFlags(w, fs, func(f *flag.Flag) bool { return inherited[f.Name] })
		}
	}
	if c.after != "" {
		fmt.Fprintf(w, "\n%s\n", c.after)
	}
}

// helpWidth is the width the flags' descriptions are wrapped to.
const helpWidth = 80

// writeFlags prints the flags of fs that keep selects, one per
// paragraph: the name (-x for one letter, --name otherwise) and its
// argument (the word in backquotes in the usage, as in package flag),
// then the usage, the range of a numeric flag and its default.
func writeFlags(w io.Writer, fs *flag.FlagSet, keep func(*flag.Flag) bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f) {
			return
		}
		arg, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if len(f.Name) == 1 && arg == "" {
			name = "-" + f.Name // a switch such as fmt's -w, as gofmt writes it
		}
		if arg != "" {
			name += " " + arg
		}
		var notes []string
		if r, ok := f.Value.(rangeDescriber); ok {
			notes = append(notes, "from "+r.describeRange())
		}
		if !isZeroDefault(f) {
			notes = append(notes, "default "+f.DefValue)
		}
		if len(notes) > 0 {
			usage += " [" + strings.Join(notes, "; ") + "]"
		}
		const indent = 24
		line := "  " + name
		if len(line) >= indent-1 {
			fmt.Fprintln(w, line)
			line = ""
		}
		first := true
		for _, word := range strings.Fields(usage) {
			switch {
			case first:
				line = fmt.Sprintf("%-*s%s", indent, line, word)
				first = false
			case len(line)+1+len(word) > helpWidth:
				fmt.Fprintln(w, line)
				line = strings.Repeat(" ", indent) + word
			default:
				line += " " + word
			}
		}
		fmt.Fprintln(w, line)
	})
}

// isZeroDefault says whether a flag's default is its type's zero value,
// which the help does not print.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return true
	}
	return false
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
Run 'weft help COMMAND' for the flags of a command.
`)
}
