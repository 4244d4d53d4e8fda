package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"weft/grammar"
)

// fmtFlags are the flags of weft fmt.
type fmtFlags struct{ write, list bool }

func (f *fmtFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.write, "w", false, "rewrite the files whose layout differs, instead of printing them")
	fs.BoolVar(&f.list, "l", false, "list the files whose layout differs from the canonical one")
}

// cmdFmt formats models as gofmt does Go files: the files and directories
// given (DIR/... too), or standard input when none is.
func cmdFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fmt", flag.ContinueOnError)
	var ff fmtFlags
	ff.register(fs)
	write, list := &ff.write, &ff.list
	pos, done, code := parseCommand(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) == 0 {
		if *write || *list {
			fmt.Fprintln(stderr, "weft fmt: -w and -l need files (standard input is formatted to standard output)")
			return exitUsage
		}
		src, err := readLimited(stdin, "standard input")
		if err != nil {
			fmt.Fprintln(stderr, "weft fmt:", err)
			return exitUsage
		}
		out, ok := format("<stdin>", src, stderr)
		if !ok {
			return exitUsage
		}
		stdout.Write(out)
		return exitOK
	}
	files, errs := expandArgs(pos)
	code = exitOK
	for _, err := range errs {
		fmt.Fprintln(stderr, "weft fmt:", err)
		code = exitUsage
	}
	for _, path := range files {
		src, err := readModel(path)
		if err != nil {
			fmt.Fprintln(stderr, "weft fmt:", err)
			code = exitUsage
			continue
		}
		out, ok := format(path, src, stderr)
		if !ok {
			code = exitUsage
			continue
		}
		same := bytes.Equal(out, src)
		if *list && !same {
			fmt.Fprintln(stdout, path)
		}
		switch {
		case *write:
			if !same {
				if err := writeKeepingMode(path, out); err != nil {
					fmt.Fprintln(stderr, "weft fmt:", err)
					code = exitUsage
				}
			}
		case !*list:
			stdout.Write(out)
		}
	}
	return code
}

// format returns src in the canonical layout, or reports why it cannot.
func format(path string, src []byte, stderr io.Writer) ([]byte, bool) {
	file, diags := grammar.ParseFile(path, src)
	if len(diags) > 0 {
		printDiagnostics(stderr, path, diags)
		return nil, false
	}
	out, err := grammar.Format(file, src)
	if err != nil {
		fmt.Fprintf(stderr, "weft fmt: %s: %v\n", path, err)
		return nil, false
	}
	return out, true
}

// writeKeepingMode rewrites a file with its permissions unchanged.
func writeKeepingMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(path, data, mode)
}
