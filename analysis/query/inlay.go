package query

import (
	"strconv"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// InlayHintKind says what an inlay hint shows. The values are LSP's
// InlayHintKind.
type InlayHintKind uint8

// HintType is the kind of every hint given today: a type, a value or a
// count that the text does not spell out. (LSP's other kind, 2, is for
// parameter names.)
const HintType InlayHintKind = 1

// InlayHint is a label shown at Pos, between the characters of the text.
type InlayHint struct {
	Pos   source.Pos
	Label string
	Kind  InlayHintKind
	// PaddingLeft and PaddingRight ask for a space before and after the
	// label.
	PaddingLeft, PaddingRight bool
}

// InlayHints returns the hints whose position lies in rng (ends
// included), in source order. Only what the text does not already show:
//
//   - the value of a constant whose value is not a literal, after it:
//     const M = N * 2 + 1 ‹= 17›;
//   - the instances of a thread array whose bounds are not both literals,
//     before its body: thread w[i in 0..N] ‹4 instances› {;
//   - the checked type of a variable whose type has an array length that
//     is not a literal, after the type: var data [N][M]int ‹[8][17]int›.
func InlayHints(prog *analysis.Program, rng source.Range) []InlayHint {
	if prog == nil || prog.File == nil {
		return nil
	}
	var out []InlayHint
	add := func(h InlayHint) {
		if h.Pos.IsValid() && rng.Start.Offset <= h.Pos.Offset && h.Pos.Offset <= rng.End.Offset {
			out = append(out, h)
		}
	}
	typeHint := func(d *grammar.VarDecl) {
		if d == nil || d.Name == nil || !lengthNotLiteral(d.Type) {
			return
		}
		if obj := prog.Uses[d.Name]; obj != nil && obj.Ident == d.Name && obj.Type != nil {
			add(InlayHint{Pos: d.Type.End(), Label: obj.Type.String(), Kind: HintType, PaddingLeft: true})
		}
	}
	for _, d := range prog.File.Decls {
		if d == nil || d.End().Offset < rng.Start.Offset || d.Pos().Offset > rng.End.Offset {
			continue
		}
		switch d := d.(type) {
		case *grammar.ConstDecl:
			obj := prog.Uses[d.Name]
			if obj == nil || obj.Ident != d.Name || !obj.Value.IsValid() || isLiteral(d.Value) {
				continue
			}
			add(InlayHint{Pos: d.Value.End(), Label: "= " + obj.Value.String(), Kind: HintType, PaddingLeft: true})
		case *grammar.VarDecl:
			typeHint(d)
		case *grammar.ThreadDecl:
			obj := prog.Uses[d.Name]
			if obj != nil && obj.Ident == d.Name && obj.IsArray && obj.Type != nil && !(isLiteral(d.Lo) && isLiteral(d.Hi)) &&
				d.Body != nil && d.Body.Rbrace.Offset > d.Body.Lbrace.Offset && d.Body.Lbrace.Line == d.Name.NamePos.Line {
				add(InlayHint{Pos: d.Body.Lbrace, Label: instances(obj.Hi - obj.Lo), Kind: HintType, PaddingRight: true})
			}
			localTypeHints(d.Body, typeHint)
		case *grammar.ProcDecl:
			localTypeHints(d.Body, typeHint)
		case *grammar.FuncDecl:
			localTypeHints(d.Body, typeHint)
		}
	}
	return out
}

func instances(n int64) string {
	switch {
	case n <= 0:
		return "no instances"
	case n == 1:
		return "1 instance"
	}
	return strconv.FormatInt(n, 10) + " instances"
}

// localTypeHints calls f on every local declaration of body.
func localTypeHints(body *grammar.Block, f func(*grammar.VarDecl)) {
	if body == nil {
		return
	}
	grammar.Inspect(body, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.DeclStmt:
			f(n.Decl)
			return false
		case grammar.Expr:
			return false
		}
		return true
	})
}

// isLiteral reports whether e is written as a literal (a sign included).
func isLiteral(e grammar.Expr) bool {
	if u, ok := e.(*grammar.UnaryExpr); ok && u != nil && u.Op == grammar.SUB {
		e = u.X
	}
	switch e.(type) {
	case *grammar.IntLit, *grammar.BoolLit:
		return true
	}
	return false
}

// lengthNotLiteral reports whether an array type has a length that is not
// a literal.
func lengthNotLiteral(te grammar.TypeExpr) bool {
	for {
		a, ok := te.(*grammar.ArrayType)
		if !ok || a == nil {
			return false
		}
		if !isLiteral(a.Len) {
			return true
		}
		te = a.Elem
	}
}
