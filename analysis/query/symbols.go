package query

import (
	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// Symbol is one entry of the document outline.
type Symbol struct {
	Name   string
	Detail string // see describe: "= 8", "atomic int", "0..4", "(i int)"
	Kind   Kind
	// Range covers the whole declaration; SelectionRange, inside it, the
	// declaring name.
	Range, SelectionRange source.Range
	// Children of a thread, proc or function: its thread index or parameters, then
	// its locals and loop variables, in source order, however deeply
	// nested (a flat list).
	Children []Symbol
}

// Symbols returns the outline of the file: its top-level declarations in
// source order. Declarations whose name is missing (a syntax error) are
// left out, as editors require a name.
func Symbols(prog *analysis.Program) []Symbol {
	if prog == nil || prog.File == nil {
		return nil
	}
	var out []Symbol
	for _, d := range prog.File.Decls {
		var id *grammar.Ident
		switch d := d.(type) {
		case *grammar.ConstDecl:
			id = d.Name
		case *grammar.VarDecl:
			id = d.Name
		case *grammar.ThreadDecl:
			id = d.Name
		case *grammar.ProcDecl:
			id = d.Name
		case *grammar.FuncDecl:
			id = d.Name
		}
		sym, ok := symbolOf(prog, id, d)
		if !ok {
			continue
		}
		switch d := d.(type) {
		case *grammar.ThreadDecl:
			if s, ok := symbolOf(prog, d.Index, d.Index); ok {
				sym.Children = append(sym.Children, s)
			}
			sym.Children = appendLocals(prog, sym.Children, d.Body)
		case *grammar.ProcDecl:
			sym.Children = appendParams(prog, sym.Children, d.Params)
			sym.Children = appendLocals(prog, sym.Children, d.Body)
		case *grammar.FuncDecl:
			sym.Children = appendParams(prog, sym.Children, d.Params)
			sym.Children = appendLocals(prog, sym.Children, d.Body)
		}
		out = append(out, sym)
	}
	return out
}

// symbolOf makes the symbol of the object that id declares, covering
// node; false if id declares nothing.
func symbolOf(prog *analysis.Program, id *grammar.Ident, node grammar.Node) (Symbol, bool) {
	if id == nil || id.Name == "" {
		return Symbol{}, false
	}
	obj := prog.Uses[id]
	if obj == nil || obj.Ident != id {
		return Symbol{}, false
	}
	sel := grammar.Range(id)
	rng := grammar.Range(node)
	if !rng.End.IsValid() || rng.Start.Offset > sel.Start.Offset || rng.End.Offset < sel.End.Offset {
		rng = sel
	}
	return Symbol{Name: id.Name, Detail: describe(obj), Kind: kindOf(obj), Range: rng, SelectionRange: sel}, true
}

// appendParams appends the symbols of a proc's or function's parameters.
func appendParams(prog *analysis.Program, out []Symbol, params []*grammar.Param) []Symbol {
	for _, p := range params {
		if p == nil {
			continue
		}
		if s, ok := symbolOf(prog, p.Name, p); ok {
			out = append(out, s)
		}
	}
	return out
}

// appendLocals appends the symbols of the locals and loop variables that
// body declares, in source order.
func appendLocals(prog *analysis.Program, out []Symbol, body *grammar.Block) []Symbol {
	if body == nil {
		return out
	}
	grammar.Inspect(body, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.DeclStmt:
			if n.Decl != nil {
				if s, ok := symbolOf(prog, n.Decl.Name, n.Decl); ok {
					out = append(out, s)
				}
			}
			return false
		case *grammar.ForStmt:
			if s, ok := symbolOf(prog, n.Var, n.Var); ok {
				out = append(out, s)
			}
		case grammar.Expr:
			return false
		}
		return true
	})
	return out
}
