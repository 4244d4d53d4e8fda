package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"weft/lsp"
)

// cmdLSP serves the Language Server Protocol on stdin and stdout.
func cmdLSP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lsp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	new(serverFlags).register(fs)
	fs.Usage = func() { commandUsage(stderr, "lsp") }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weft lsp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	err := lsp.Serve(ctx, stdin, stdout, nil, lsp.Options{Log: stderr, Version: version()})
	if err != nil {
		fmt.Fprintf(stderr, "weft lsp: %v\n", err)
		return 1
	}
	return exitOK
}

// isServer says whether the command line runs the language server or
// the debug adapter, which are not supervised: they recover their own
// panics, and their client restarts them.
func isServer(args []string) bool {
	return len(args) > 0 && (args[0] == "lsp" || args[0] == "dap")
}

// serverFlags are the flags of weft lsp and weft dap.
type serverFlags struct{ stdio bool }

func (f *serverFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.stdio, "stdio", true, "talk over stdin and stdout, the only transport (clients such as VS Code's pass it)")
}
