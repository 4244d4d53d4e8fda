package query

import (
	"math"
	"sort"

	"weft/analysis"
	"weft/grammar"
)

// The scope tree: where each declared name is visible, by byte offset. It
// follows the checker's rules (analysis/check.go, body.go) and is tested
// against them (every resolved use must look up to the object the checker
// recorded):
//
//   - top-level names are visible in the whole file, before their
//     declaration too; a name declared twice keeps its first declaration;
//   - a thread's index and a proc's or function's parameters are visible in
//     the body, and share its outermost scope with the locals declared at
//     its top level;
//   - a local is visible from the end of its declaration (its own
//     initialiser still sees an outer name) to the end of its block;
//   - a loop variable is visible in the loop's body, which is the loop
//     variable's scope (not a scope of its own);
//   - every other block (if, else, while, atomic, a bare block) opens a
//     scope; a name declared twice in one scope keeps its first declaration.

// scope is a region [start, end) of the file and the names declared in it.
type scope struct {
	parent     *scope
	start, end int
	entries    []entry          // in declaration order, duplicates included
	index      map[string]int32 // name → first bound entry, for large scopes
	children   []*scope         // in source order, disjoint
	body       bool             // a thread, proc or function body or inside one
	fn         bool             // a function body or inside one
	loop       bool             // a for or while body (break and continue allowed)
	atomic     bool             // an atomic block's body
}

// entry is one declaration in a scope.
type entry struct {
	obj   *analysis.Object
	from  int  // the name is visible from here to the scope's end
	bound bool // false for a redeclaration, which binds nothing
}

// indexAbove is the number of entries from which a scope keeps a map.
const indexAbove = 8

// scopeTree is the scope tree of one file.
type scopeTree struct {
	root *scope
	// declScope is the scope that declares each object (redeclarations
	// included).
	declScope map[*analysis.Object]*scope
}

type scopeBuilder struct {
	prog *analysis.Program
	src  []byte // nil: block extents are the tree's
	tree *scopeTree
}

// buildScopes returns the scope tree of prog's file. With the text src,
// a block whose closing brace is missing extends to the end of the scope
// around it (for a body: to the next declaration), which is where an
// editor's cursor is while the block is being typed; without it, a block
// ends where the tree says.
func buildScopes(prog *analysis.Program, src []byte) *scopeTree {
	t := &scopeTree{
		root:      &scope{start: 0, end: math.MaxInt},
		declScope: make(map[*analysis.Object]*scope),
	}
	if prog == nil || prog.File == nil {
		return t
	}
	b := &scopeBuilder{prog: prog, src: src, tree: t}
	decls := prog.File.Decls
	for _, d := range decls {
		switch d := d.(type) {
		case *grammar.ConstDecl:
			b.declare(t.root, d.Name, 0)
		case *grammar.VarDecl:
			b.declare(t.root, d.Name, 0)
		case *grammar.ThreadDecl:
			b.declare(t.root, d.Name, 0)
		case *grammar.ProcDecl:
			b.declare(t.root, d.Name, 0)
		case *grammar.FuncDecl:
			b.declare(t.root, d.Name, 0)
		}
	}
	for i, d := range decls {
		next := math.MaxInt
		if i+1 < len(decls) && decls[i+1] != nil {
			next = decls[i+1].Pos().Offset
		}
		switch d := d.(type) {
		case *grammar.ThreadDecl:
			s := b.open(t.root, d.Body, next)
			if s == nil {
				continue
			}
			s.body = true
			if d.Index != nil {
				b.declare(s, d.Index, s.start)
			}
			b.stmts(s, d.Body.Stmts)
		case *grammar.ProcDecl:
			s := b.open(t.root, d.Body, next)
			if s == nil {
				continue
			}
			s.body = true
			for _, p := range d.Params {
				if p != nil {
					b.declare(s, p.Name, s.start)
				}
			}
			b.stmts(s, d.Body.Stmts)
		case *grammar.FuncDecl:
			s := b.open(t.root, d.Body, next)
			if s == nil {
				continue
			}
			s.body, s.fn = true, true
			for _, p := range d.Params {
				if p != nil {
					b.declare(s, p.Name, s.start)
				}
			}
			b.stmts(s, d.Body.Stmts)
		}
	}
	return t
}

// declare adds the declaration of id (if it declares an object) to s,
// visible from offset from.
func (b *scopeBuilder) declare(s *scope, id *grammar.Ident, from int) {
	if id == nil || id.Name == "" {
		return
	}
	obj := b.prog.Uses[id]
	if obj == nil || obj.Ident != id {
		return
	}
	b.tree.declScope[obj] = s
	e := entry{obj: obj, from: from, bound: s.lookupHere(obj.Name, math.MaxInt) == nil}
	s.entries = append(s.entries, e)
	if !e.bound {
		return
	}
	if s.index != nil {
		s.index[obj.Name] = int32(len(s.entries) - 1)
	} else if len(s.entries) > indexAbove {
		s.index = make(map[string]int32, 2*len(s.entries))
		for i := len(s.entries) - 1; i >= 0; i-- {
			if e := s.entries[i]; e.bound {
				s.index[e.obj.Name] = int32(i)
			}
		}
	}
}

// open starts the scope of block blk inside parent; limit is where the
// block ends at the latest if its closing brace is missing. It returns nil
// for a missing block.
func (b *scopeBuilder) open(parent *scope, blk *grammar.Block, limit int) *scope {
	if blk == nil {
		return nil
	}
	start := blk.Lbrace.Offset + 1
	end := blk.End().Offset
	if b.src != nil {
		switch {
		case !isByteAt(b.src, blk.Lbrace.Offset, '{'):
			// No opening brace: the block is empty and covers nothing.
			end = start
		case unclosed(b.src, blk):
			end = min(limit, parent.end)
		}
	}
	if end < start {
		end = start
	}
	s := &scope{parent: parent, start: start, end: end, body: parent.body, fn: parent.fn, loop: parent.loop, atomic: parent.atomic}
	parent.children = append(parent.children, s)
	return s
}

// unclosed reports whether blk lacks its closing brace: the parser then
// puts Rbrace on the last character of the token before, which is not a
// '}' or comes before the end of the block's last statement.
func unclosed(src []byte, blk *grammar.Block) bool {
	if !isByteAt(src, blk.Rbrace.Offset, '}') || blk.Rbrace.Offset <= blk.Lbrace.Offset {
		return true
	}
	if n := len(blk.Stmts); n > 0 && blk.Stmts[n-1] != nil && blk.Rbrace.Offset < blk.Stmts[n-1].End().Offset {
		return true
	}
	return false
}

func isByteAt(src []byte, off int, c byte) bool {
	return off >= 0 && off < len(src) && src[off] == c
}

func (b *scopeBuilder) stmts(s *scope, list []grammar.Stmt) {
	for _, st := range list {
		b.stmt(s, st)
	}
}

func (b *scopeBuilder) stmt(s *scope, st grammar.Stmt) {
	switch st := st.(type) {
	case *grammar.Block:
		if c := b.open(s, st, s.end); c != nil {
			b.stmts(c, st.Stmts)
		}
	case *grammar.DeclStmt:
		if st.Decl != nil {
			b.declare(s, st.Decl.Name, st.Decl.End().Offset)
		}
	case *grammar.IfStmt:
		for st != nil { // an else-if chain is followed in a loop
			b.stmt(s, st.Then)
			next, ok := st.Else.(*grammar.IfStmt)
			if !ok {
				if st.Else != nil {
					b.stmt(s, st.Else)
				}
				break
			}
			st = next
		}
	case *grammar.WhileStmt:
		if c := b.open(s, st.Body, s.end); c != nil {
			c.loop = true
			b.stmts(c, st.Body.Stmts)
		}
	case *grammar.ForStmt:
		if c := b.open(s, st.Body, s.end); c != nil {
			c.loop = true
			b.declare(c, st.Var, c.start)
			b.stmts(c, st.Body.Stmts)
		}
	case *grammar.AtomicStmt:
		if c := b.open(s, st.Body, s.end); c != nil {
			c.atomic = true
			b.stmts(c, st.Body.Stmts)
		}
	}
}

// innermost returns the innermost scope whose region contains offset off.
func (t *scopeTree) innermost(off int) *scope {
	s := t.root
	for {
		cs := s.children
		i := sort.Search(len(cs), func(i int) bool { return cs[i].start > off }) - 1
		if i < 0 || off >= cs[i].end {
			return s
		}
		s = cs[i]
	}
}

// lookupHere returns the object that name denotes in s alone at offset
// off, or nil.
func (s *scope) lookupHere(name string, off int) *analysis.Object {
	if s.index != nil {
		if i, ok := s.index[name]; ok && s.entries[i].from <= off {
			return s.entries[i].obj
		}
		return nil
	}
	for _, e := range s.entries {
		if e.bound && e.obj.Name == name {
			if e.from <= off {
				return e.obj
			}
			return nil
		}
	}
	return nil
}

// lookup returns the object that name denotes at offset off, starting in
// scope s and going outwards, or nil.
func lookup(s *scope, name string, off int) *analysis.Object {
	for ; s != nil; s = s.parent {
		if obj := s.lookupHere(name, off); obj != nil {
			return obj
		}
	}
	return nil
}

// visible calls f for every object visible at offset off, innermost first,
// once per name (an inner declaration hides an outer one of the same
// name).
func visible(s *scope, off int, f func(obj *analysis.Object)) {
	seen := make(map[string]bool)
	for ; s != nil; s = s.parent {
		for _, e := range s.entries {
			if !e.bound || e.from > off || seen[e.obj.Name] {
				continue
			}
			seen[e.obj.Name] = true
			f(e.obj)
		}
	}
}
