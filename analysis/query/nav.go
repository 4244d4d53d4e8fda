package query

import (
	"sort"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// objectAt returns the identifier under pos and the object it denotes
// (see analysis.Program.IdentAt: a cursor just after a name counts), or
// nils.
func objectAt(prog *analysis.Program, pos source.Pos) (*grammar.Ident, *analysis.Object) {
	if prog == nil || prog.Uses == nil {
		return nil, nil
	}
	id := prog.IdentAt(pos)
	if id == nil {
		return nil, nil
	}
	obj := prog.Uses[id]
	if obj == nil || obj.Ident == nil || obj.Ident.Name == "" {
		return nil, nil
	}
	return id, obj
}

// Definition returns the range of the identifier that declares the name
// at pos: a constant, shared variable, local, parameter, loop variable,
// thread, thread index or proc. It reports false when there is no
// resolved name at pos.
func Definition(prog *analysis.Program, pos source.Pos) (source.Range, bool) {
	_, obj := objectAt(prog, pos)
	if obj == nil {
		return source.Range{}, false
	}
	return grammar.Range(obj.Ident), true
}

// References returns every occurrence of the object named at pos, in
// source order, its declaration included if includeDecl.
func References(prog *analysis.Program, pos source.Pos, includeDecl bool) []source.Range {
	_, obj := objectAt(prog, pos)
	if obj == nil {
		return nil
	}
	ids := occurrences(prog, obj)
	out := make([]source.Range, 0, len(ids))
	for _, id := range ids {
		if id == obj.Ident && !includeDecl {
			continue
		}
		out = append(out, grammar.Range(id))
	}
	return out
}

// occurrences returns the identifiers that denote obj, declaration
// included, in source order.
func occurrences(prog *analysis.Program, obj *analysis.Object) []*grammar.Ident {
	var ids []*grammar.Ident
	for id, o := range prog.Uses {
		if o == obj {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].NamePos.Offset < ids[j].NamePos.Offset })
	return ids
}

// HighlightKind says whether an occurrence reads or writes its object.
type HighlightKind uint8

// The kinds of highlights. The values are LSP's DocumentHighlightKind.
const (
	Read  HighlightKind = 2
	Write HighlightKind = 3
)

func (k HighlightKind) String() string {
	if k == Write {
		return "write"
	}
	return "read"
}

// Highlight is one occurrence of the name under the cursor.
type Highlight struct {
	Range source.Range
	Kind  HighlightKind
}

// Highlights returns every occurrence of the object named at pos, in
// source order. Writes are the declaration, the target of an assignment,
// `++` or `--` (the variable whose element is assigned, for `a[i] = …`),
// the mutex of a lock, unlock or trylock, and the condition variable and
// mutex of a wait, signal or broadcast; every other occurrence is a
// read.
func Highlights(prog *analysis.Program, pos source.Pos) []Highlight {
	_, obj := objectAt(prog, pos)
	if obj == nil {
		return nil
	}
	ids := occurrences(prog, obj)
	writes := writeTargets(prog.File)
	out := make([]Highlight, 0, len(ids))
	for _, id := range ids {
		k := Read
		if id == obj.Ident || writes[id] {
			k = Write
		}
		out = append(out, Highlight{Range: grammar.Range(id), Kind: k})
	}
	return out
}

// writeTargets returns the identifiers that a statement or a trylock
// writes: the root variable of an assignment's, `++`'s or `--`'s target,
// the mutex of a lock, unlock or trylock, and the condition variable and
// mutex of a wait, signal or broadcast (which change its waiters).
func writeTargets(f *grammar.File) map[*grammar.Ident]bool {
	w := make(map[*grammar.Ident]bool)
	if f == nil {
		return w
	}
	grammar.Inspect(f, func(n grammar.Node) bool {
		switch n := n.(type) {
		case *grammar.AssignStmt:
			markRoot(w, n.LHS)
		case *grammar.IncDecStmt:
			markRoot(w, n.X)
		case *grammar.LockStmt:
			markRoot(w, n.Mutex)
		case *grammar.TrylockExpr:
			markRoot(w, n.Mutex)
		case *grammar.WaitStmt:
			markRoot(w, n.Cond)
			markRoot(w, n.Mutex)
		case *grammar.SignalStmt:
			markRoot(w, n.Cond)
		}
		return true
	})
	return w
}

// markRoot marks the variable at the root of an assignment target.
func markRoot(w map[*grammar.Ident]bool, e grammar.Expr) {
	for {
		switch x := e.(type) {
		case *grammar.Ident:
			if x != nil {
				w[x] = true
			}
			return
		case *grammar.IndexExpr:
			if x == nil {
				return
			}
			e = x.X
		case *grammar.ParenExpr:
			if x == nil {
				return
			}
			e = x.X
		default:
			return
		}
	}
}
