package query

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"weft/analysis"
	"weft/grammar"
	"weft/source"
)

// Edit replaces the text of Range with NewText.
type Edit struct {
	Range   source.Range
	NewText string
}

// PrepareRename says whether the name at pos can be renamed: it returns
// the identifier's range and its name, or an error that says why not (no
// declared name there, or a syntax error in the part of the file where the
// name is visible, whose unparsed text might hold uses of it).
func PrepareRename(prog *analysis.Program, pos source.Pos) (source.Range, string, error) {
	id, _, _, err := prepare(prog, pos)
	if err != nil {
		return source.Range{}, "", err
	}
	return grammar.Range(id), id.Name, nil
}

// Rename returns the edits that rename the object named at pos, and every
// occurrence of it, to newName, in source order. It refuses (with an error
// that says what is in the way) when newName is not an identifier or is a
// keyword, or when the renamed object and another one would see each
// other: newName already declared in the same scope, an outer newName
// that the renamed object would hide (the checker's shadowed-name), or a
// newName declared in an inner scope where the object is visible, which
// would hide it. Renaming to the same name gives no edits.
func Rename(prog *analysis.Program, pos source.Pos, newName string) ([]Edit, error) {
	_, obj, tree, err := prepare(prog, pos)
	if err != nil {
		return nil, err
	}
	if err := checkIdentifier(newName); err != nil {
		return nil, err
	}
	if newName == obj.Name {
		return nil, nil
	}
	if err := renameConflict(tree, obj, newName); err != nil {
		return nil, fmt.Errorf("cannot rename %s to %s: %w", obj.Name, newName, err)
	}
	ids := occurrences(prog, obj)
	edits := make([]Edit, len(ids))
	for i, id := range ids {
		edits[i] = Edit{Range: grammar.Range(id), NewText: newName}
	}
	return edits, nil
}

// prepare finds the object to rename at pos and checks that no syntax
// error hides part of where it is visible.
func prepare(prog *analysis.Program, pos source.Pos) (*grammar.Ident, *analysis.Object, *scopeTree, error) {
	id, obj := objectAt(prog, pos)
	if obj == nil {
		return nil, nil, nil, errors.New("there is no declared name here to rename")
	}
	tree := buildScopes(prog, nil)
	s := tree.declScope[obj]
	if s == nil {
		return nil, nil, nil, fmt.Errorf("cannot rename %s: its declaration was not understood", obj.Name)
	}
	from, to := s.start, s.end
	if s.parent == nil {
		from, to = 0, prog.File.EOF.Offset+1
	}
	if bad := badNodeIn(prog.File, from, to); bad != nil {
		return nil, nil, nil, fmt.Errorf("cannot rename %s: the syntax error at %s may hide uses of it; fix it first",
			obj.Name, bad.Pos())
	}
	return id, obj, tree, nil
}

// checkIdentifier reports why name cannot be a Weft name, if it cannot.
func checkIdentifier(name string) error {
	if name == "" {
		return errors.New("the new name is empty")
	}
	for i, r := range name {
		if r == utf8.RuneError {
			return fmt.Errorf("%q is not valid UTF-8", name)
		}
		if i == 0 && !isIdentStart(r) || !isIdentPart(r) {
			return fmt.Errorf("%q is not a name: names are a letter or _ followed by letters, digits and _", name)
		}
	}
	if k := grammar.Lookup(name); k != grammar.IDENT {
		if k.IsReserved() {
			return fmt.Errorf("%q is reserved for a later version of Weft", name)
		}
		return fmt.Errorf("%q is a keyword", name)
	}
	return nil
}

// renameConflict says why obj cannot be called newName, if it cannot.
func renameConflict(tree *scopeTree, obj *analysis.Object, newName string) error {
	s := tree.declScope[obj]
	var from int
	for _, e := range s.entries {
		if e.obj == obj {
			from = e.from
		}
	}
	// The same scope: a redeclaration, before or after.
	for _, e := range s.entries {
		if e.obj != obj && e.obj.Name == newName {
			return fmt.Errorf("%s %s is already declared at %s in the same scope",
				kindOf(e.obj), newName, e.obj.Ident.Pos())
		}
	}
	// An outer name the renamed object would hide.
	if outer := lookup(s.parent, newName, from); outer != nil {
		return fmt.Errorf("it would hide the %s %s declared at %s", kindOf(outer), newName, outer.Ident.Pos())
	}
	// An inner name that would hide the renamed object.
	if inner := declaredInside(s, from, newName); inner != nil {
		return fmt.Errorf("the %s %s declared at %s would hide it", kindOf(inner), newName, inner.Ident.Pos())
	}
	return nil
}

// declaredInside returns an object named name declared in a scope nested
// in s that starts at or after from, or nil. The walk is iterative (scopes
// nest as deep as blocks do).
func declaredInside(s *scope, from int, name string) *analysis.Object {
	stack := make([]*scope, 0, 16)
	for _, c := range s.children {
		if c.end > from {
			stack = append(stack, c)
		}
	}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range c.entries {
			if e.obj.Name == name {
				return e.obj
			}
		}
		stack = append(stack, c.children...)
	}
	return nil
}

// badNodeIn returns a Bad… node with text in it that overlaps [from, to),
// or nil.
func badNodeIn(f *grammar.File, from, to int) grammar.Node {
	var bad grammar.Node
	grammar.Inspect(f, func(n grammar.Node) bool {
		if n == nil || bad != nil {
			return false
		}
		if start, end := n.Pos().Offset, n.End().Offset; start >= to || end >= 0 && end < from {
			return false
		}
		switch n.(type) {
		case *grammar.BadDecl, *grammar.BadStmt, *grammar.BadExpr:
			if n.End().Offset > n.Pos().Offset && n.End().Offset > from {
				bad = n
			}
			return false
		}
		return true
	})
	return bad
}
