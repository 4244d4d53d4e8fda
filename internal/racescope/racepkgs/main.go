// Command racepkgs prints, one a line, the packages of the module (the
// patterns given, ./... by default) whose tests the race detector can
// find anything in (racescope.Concurrent), for .ci/run's race run; on
// standard error it says which it leaves out and that they run one
// goroutine; with -v, why it keeps each of the others. Run it from the
// module's root:
//
//	go run ./internal/racescope/racepkgs [-v] [packages]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"weft/internal/racescope"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "racepkgs:", err)
		os.Exit(1)
	}
}

// listed is what racepkgs reads of `go list -json`.
type listed struct {
	ImportPath   string
	Dir          string
	Module       *struct{ Path string }
	GoFiles      []string
	CgoFiles     []string
	TestGoFiles  []string
	XTestGoFiles []string
	// IgnoredGoFiles: files a build tag leaves out of this build, read
	// all the same (a file only the race build compiles among them).
	IgnoredGoFiles []string
	Imports        []string
	TestImports    []string
	XTestImports   []string
}

func run(args []string, stdout, stderr io.Writer) error {
	verbose := len(args) > 0 && args[0] == "-v"
	if verbose {
		args = args[1:]
	}
	if len(args) == 0 {
		args = []string{"./..."}
	}
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go list: %w\n%s", err, errOut.Bytes())
	}
	var pkgs []racescope.Package
	module := ""
	dec := json.NewDecoder(&out)
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("reading go list's output: %w", err)
		}
		if l.Module == nil {
			return fmt.Errorf("package %s is in no module", l.ImportPath)
		}
		if module == "" {
			module = l.Module.Path
		} else if module != l.Module.Path {
			return fmt.Errorf("packages of two modules, %s and %s", module, l.Module.Path)
		}
		p := racescope.Package{
			ImportPath:  l.ImportPath,
			Files:       make(map[string][]byte),
			Imports:     l.Imports,
			TestImports: append(slices.Clone(l.TestImports), l.XTestImports...),
		}
		for _, names := range [][]string{l.GoFiles, l.CgoFiles, l.TestGoFiles, l.XTestGoFiles, l.IgnoredGoFiles} {
			for _, name := range names {
				if !strings.HasSuffix(name, ".go") {
					continue
				}
				src, err := os.ReadFile(filepath.Join(l.Dir, name))
				if err != nil {
					return fmt.Errorf("package %s: %w", l.ImportPath, err)
				}
				p.Files[name] = src
			}
		}
		pkgs = append(pkgs, p)
	}
	why, err := racescope.Concurrent(module, pkgs)
	if err != nil {
		return err
	}
	var left []string
	for _, p := range pkgs {
		if why[p.ImportPath] != "" {
			fmt.Fprintln(stdout, p.ImportPath)
			if verbose {
				fmt.Fprintf(stderr, "%s: %s\n", p.ImportPath, why[p.ImportPath])
			}
		} else {
			left = append(left, p.ImportPath)
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(stderr, "racepkgs: %d packages left out of the race run, their tests run the module's code on one goroutine: %s\n", len(left), strings.Join(left, " "))
	}
	return nil
}
