// Package racescope decides which packages' tests the race detector can
// find anything in, for the race run of .ci/run.
//
// The race detector reports two goroutines that touch the same memory
// without synchronisation; in a test binary that only ever runs one
// goroutine of the repository's code it has nothing to report, and the
// run is the plain run again, ten to thirty times slower (the examples'
// explorations took 184 s under -race against 10 s without). The pointer
// checks -race also turns on (checkptr) look only at unsafe.Pointer
// conversions, and the repository has none (it uses unsafe.Sizeof only).
//
// A package is Concurrent when its test binary may run code of the
// repository on two goroutines at once: a `go` statement, a call of
// Parallel or RunParallel (tests or subtests side by side), a callback
// run on a goroutine of its own (AfterFunc, SetFinalizer, AddCleanup),
// a standard package that starts goroutines around its caller's values
// (os/exec, os/signal, net, net/http), or a package outside the module and
// the standard library (whose goroutines this scan does not read; but for
// the few in quiet, read once by hand) — in
// any file of the package, its tests, or any package of the module the
// test binary links. The rule errs towards racing: a package it cannot
// read is Concurrent.
package racescope

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// Package is one package of the module as `go list -json` describes it,
// with the text of its files.
type Package struct {
	ImportPath string
	// Files: the package's own files (test files included), name to
	// source.
	Files map[string][]byte
	// Imports: what its non-test files import; TestImports: what its
	// test files (internal and external) import.
	Imports, TestImports []string
}

// spawning are the standard packages that start goroutines which touch
// their caller's values (a command's output written into the caller's
// buffer, a signal sent on the caller's channel, a handler run per
// connection).
var spawning = map[string]bool{
	"os/exec":   true,
	"os/signal": true,
	"net":       true,
	"net/http":  true,
}

// quiet are the packages outside the module and the standard library
// that were read and start no goroutine.
var quiet = map[string]bool{
	"golang.org/x/tools/txtar": true, // a parser of a text format
}

// callbacks are the functions and methods that run their argument on a
// goroutine of its own (Parallel and RunParallel run tests side by side).
var callbacks = map[string]bool{
	"AfterFunc":    true,
	"SetFinalizer": true,
	"AddCleanup":   true,
	"Parallel":     true,
	"RunParallel":  true,
}

// Concurrent reports, for every package of pkgs (keyed by import path),
// why its test binary may run the module's code on two goroutines, or ""
// when it cannot. module is the module path: an import that is neither in
// pkgs, nor under module, nor standard (a first path element without a
// dot) is a package outside the module.
func Concurrent(module string, pkgs []Package) (map[string]string, error) {
	byPath := make(map[string]*Package, len(pkgs))
	for i := range pkgs {
		byPath[pkgs[i].ImportPath] = &pkgs[i]
	}
	// own: why a package's non-test files, or its test files, start
	// goroutines.
	own := make(map[string]string)
	ownTest := make(map[string]string)
	for _, p := range pkgs {
		names := make([]string, 0, len(p.Files))
		for name := range p.Files {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			why, err := spawns(name, p.Files[name])
			if err != nil {
				return nil, fmt.Errorf("package %s: %w", p.ImportPath, err)
			}
			if why == "" {
				continue
			}
			why = name + ": " + why
			if strings.HasSuffix(name, "_test.go") {
				if ownTest[p.ImportPath] == "" {
					ownTest[p.ImportPath] = why
				}
			} else if own[p.ImportPath] == "" {
				own[p.ImportPath] = why
			}
		}
	}
	isModule := func(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }
	// linked: why a package's non-test code, with everything it
	// imports, may start goroutines.
	linked := make(map[string]string)
	visiting := make(map[string]bool)
	var visit func(path string) string
	visit = func(path string) string {
		if why, ok := linked[path]; ok {
			return why
		}
		p := byPath[path]
		switch {
		case p == nil && isModule(path):
			return "not read" // a package of the module that was not listed
		case p == nil && standard(path):
			if spawning[path] {
				return "it starts goroutines"
			}
			return ""
		case p == nil && quiet[path]:
			return ""
		case p == nil:
			return "outside the module and the standard library"
		}
		if visiting[path] {
			return "" // an import cycle: the other visit decides
		}
		visiting[path] = true
		why := own[path]
		for _, imp := range p.Imports {
			if why != "" {
				break
			}
			if w := visit(imp); w != "" {
				why = fmt.Sprintf("imports %s (%s)", imp, w)
			}
		}
		visiting[path] = false
		linked[path] = why
		return why
	}
	out := make(map[string]string)
	for _, p := range pkgs {
		why := ownTest[p.ImportPath]
		if why == "" {
			why = visit(p.ImportPath)
		}
		for _, imp := range p.TestImports {
			if why != "" {
				break
			}
			if imp == p.ImportPath {
				continue
			}
			if w := visit(imp); w != "" {
				why = fmt.Sprintf("its tests import %s (%s)", imp, w)
			}
		}
		out[p.ImportPath] = why
	}
	return out, nil
}

// standard reports whether path is a standard package: its first element
// has no dot (as the go command decides).
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// spawns reports why the file src may start a goroutine, or "".
func spawns(name string, src []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return "", fmt.Errorf("parsing %s: %w", name, err)
	}
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return "", fmt.Errorf("%s: import %s: %w", fset.Position(spec.Pos()), spec.Path.Value, err)
		}
		if spawning[path] {
			return fmt.Sprintf("line %d imports %s, which starts goroutines", fset.Position(spec.Pos()).Line, path), nil
		}
	}
	why := ""
	ast.Inspect(f, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			why = fmt.Sprintf("line %d starts a goroutine", fset.Position(n.Pos()).Line)
		case *ast.CallExpr:
			var fun string
			switch f := n.Fun.(type) {
			case *ast.SelectorExpr:
				fun = f.Sel.Name
			case *ast.Ident:
				fun = f.Name
			}
			if callbacks[fun] {
				why = fmt.Sprintf("line %d calls %s", fset.Position(n.Pos()).Line, fun)
			}
		}
		return why == ""
	})
	return why, nil
}
