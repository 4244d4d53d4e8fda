package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"weft/grammar"
)

func cmdFmt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.Bool("w", false, "write the result to the file instead of printing it")
	list := fs.Bool("l", false, "list the files whose layout differs from the canonical one")
	files, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "weft fmt: want at least one FILE")
		return exitUsage
	}
	code := exitOK
	for _, path := range files {
		src, err := readModel(path)
		if err != nil {
			fmt.Fprintln(stderr, "weft fmt:", err)
			code = exitUsage
			continue
		}
		file, diags := grammar.ParseFile(path, src)
		if len(diags) > 0 {
			printDiagnostics(stderr, path, diags)
			code = exitUsage
			continue
		}
		out, err := grammar.Format(file, src)
		if err != nil {
			fmt.Fprintf(stderr, "weft fmt: %s: %v\n", path, err)
			code = exitUsage
			continue
		}
		same := bytes.Equal(out, src)
		switch {
		case *list:
			if !same {
				fmt.Fprintln(stdout, path)
				if code == exitOK {
					code = exitBug
				}
			}
		case *write:
			if !same {
				if err := os.WriteFile(path, out, 0o644); err != nil {
					fmt.Fprintln(stderr, "weft fmt:", err)
					code = exitUsage
				}
			}
		default:
			stdout.Write(out)
		}
	}
	return code
}
