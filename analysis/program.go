package analysis

import (
	"weft/grammar"
	"weft/source"
)

// Limits that keep a model small enough to explore.
const (
	MaxWords     = 1 << 20 // words of shared memory, of one frame, of one array
	MaxInstances = 10000   // declared thread instances in a program
)

// Program is the result of checking a file.
type Program struct {
	File *grammar.File
	// Diagnostics holds the analysis's diagnostics (not the parser's),
	// sorted by position.
	Diagnostics []source.Diagnostic

	Consts  []*Object         // top-level constants, in declaration order
	Shared  []*Object         // shared variables, in declaration order
	Threads []*ThreadInstance // every declared thread instance, in declaration then index order
	// ThreadObjects holds the Thread objects (one per thread declaration),
	// in declaration order.
	ThreadObjects []*Object
	Procs         []*Object // procs, in declaration order
	Funcs         []*Object // functions, in declaration order

	// SharedSize is the number of words of shared memory; every shared
	// variable's words are [Offset, Offset+SizeOf(Type)).
	SharedSize int

	// Uses maps every identifier occurrence, declaration sites included,
	// to the object it denotes. Unresolved identifiers are absent.
	Uses map[*grammar.Ident]*Object
	// Types holds the type of every well-typed expression.
	Types map[grammar.Expr]Type
	// ConstValues holds the value of every constant expression: literals,
	// constants and operators applied to constant operands. A thread index
	// is not constant here (its value differs per instance).
	ConstValues map[grammar.Expr]Value

	top map[string]*Object
}

// HasErrors reports whether some diagnostic is an error.
func (p *Program) HasErrors() bool { return source.HasErrors(p.Diagnostics) }

// Lookup returns the top-level object (constant, shared variable, thread,
// proc or function) named name, or nil.
func (p *Program) Lookup(name string) *Object { return p.top[name] }

// IdentAt returns the identifier that covers pos (start included, end
// included too, so that a cursor just after a name still finds it), or nil.
// It prefers an identifier that strictly contains pos.
func (p *Program) IdentAt(pos source.Pos) *grammar.Ident {
	var atEnd *grammar.Ident
	for id := range p.Uses {
		s, e := id.Pos().Offset, id.End().Offset
		if s <= pos.Offset && pos.Offset < e {
			return id
		}
		if pos.Offset == e && atEnd == nil {
			atEnd = id
		}
	}
	return atEnd
}

// ObjectAt returns the object of the identifier under pos (see IdentAt),
// or nil: what hover and go-to-definition show.
func (p *Program) ObjectAt(pos source.Pos) *Object {
	if id := p.IdentAt(pos); id != nil {
		return p.Uses[id]
	}
	return nil
}

// InstancesOf returns the instances of a declared thread (nil for other
// objects).
func (p *Program) InstancesOf(obj *Object) []*ThreadInstance {
	if obj == nil || obj.Kind != Thread {
		return nil
	}
	return obj.Instances
}

// RootOf returns the object at the root of an index chain (the a of
// a[i][j], through parentheses), or nil when the root is not a name that
// resolves.
func (p *Program) RootOf(e grammar.Expr) *Object {
	for {
		switch x := e.(type) {
		case *grammar.IndexExpr:
			e = x.X
		case *grammar.ParenExpr:
			e = x.X
		case *grammar.Ident:
			return p.Uses[x]
		default:
			return nil
		}
	}
}
