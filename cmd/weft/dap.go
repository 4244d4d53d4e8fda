package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"weft/dap"
)

// cmdDAP serves the Debug Adapter Protocol on stdin and stdout: the
// replay debugger.
func cmdDAP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	new(serverFlags).register(fs)
	fs.Usage = func() { commandUsage(stderr, "dap") }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "weft dap: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	err := dap.Serve(ctx, stdin, stdout, dap.Options{Log: stderr})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "weft dap: %v\n", err)
		return 1
	}
	return exitOK
}
