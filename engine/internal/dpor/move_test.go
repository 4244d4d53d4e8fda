package dpor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestOneWayToMove: in this package only explorer.step and explorer.undo
// move the worker (they keep the tree's live threads and cdpor in step
// with it), and the explorer embeds nothing whose Step or Undo could be
// called in their place (issue 28: explorer.step beside an embedded
// Driver.Step, where calling the wrong one silently skipped bookkeeping).
func TestOneWayToMove(t *testing.T) {
	moves := map[string]bool{"Step": true, "StepAlt": true, "StepBounded": true, "Probe": true, "Undo": true, "UndoTo": true}
	allowed := map[string]bool{"step": true, "undo": true}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				ok = fn.Recv != nil && allowed[fn.Name.Name] && recvName(fn) == "explorer"
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, isCall := n.(*ast.CallExpr)
					if !isCall {
						return true
					}
					if sel, isSel := call.Fun.(*ast.SelectorExpr); isSel && moves[sel.Sel.Name] {
						calls++
						if !ok {
							t.Errorf("%s: %s calls %s: only explorer.step and explorer.undo move", fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
						}
					}
					return true
				})
			}
		}
	}
	if calls < 2 {
		t.Fatalf("found %d moving calls, want those of step and undo: the check looks at nothing", calls)
	}
	et := reflect.TypeFor[explorer]()
	for i := range et.NumField() {
		if f := et.Field(i); f.Anonymous {
			t.Errorf("explorer embeds %s", f.Name)
		}
	}
}

func recvName(fn *ast.FuncDecl) string {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
