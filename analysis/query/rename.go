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
// the identifier's range and its name, or an error that says why not: no
// declared name there, or the name written somewhere in its scope that
// the parser could not read (a syntax error), which a rename would miss.
func PrepareRename(src *source.File, prog *analysis.Program, pos source.Pos) (source.Range, string, error) {
	id, _, _, err := prepare(src, prog, pos)
	if err != nil {
		return source.Range{}, "", err
	}
	return grammar.Range(id), id.Name, nil
}

// Rename returns the edits that rename the object named at pos, and every
// occurrence of it, to newName, in source order. It refuses (with an error
// that says what is in the way) when PrepareRename does, when newName is
// not an identifier or is a keyword, and when the renamed object and
// another one would see each other: newName already declared in the same
// scope, an outer newName that the renamed object would hide (what the
// checker warns about as shadowed-name), or a newName declared in an
// inner scope where the object is visible, which would hide it. Renaming
// to the same name gives no edits.
func Rename(src *source.File, prog *analysis.Program, pos source.Pos, newName string) ([]Edit, error) {
	_, obj, tree, err := prepare(src, prog, pos)
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

// prepare finds the object to rename at pos and checks that every time
// its name is written where it is visible, it is a name of the tree.
func prepare(src *source.File, prog *analysis.Program, pos source.Pos) (*grammar.Ident, *analysis.Object, *scopeTree, error) {
	id, obj := objectAt(prog, pos)
	if obj == nil || src == nil {
		return nil, nil, nil, errors.New("there is no declared name here to rename")
	}
	tree := buildScopes(prog, src.Text)
	s := tree.declScope[obj]
	if s == nil {
		return nil, nil, nil, fmt.Errorf("cannot rename %s: its declaration was not understood", obj.Name)
	}
	if at, ok := unreadName(src, prog, obj.Name, s.start, s.end); ok {
		return nil, nil, nil, fmt.Errorf("cannot rename %s: the %s at %s is in text that could not be parsed; fix the syntax error first",
			obj.Name, obj.Name, at)
	}
	return id, obj, tree, nil
}

// unreadName returns the position of a token spelled name in [from, to)
// that is no identifier of the tree (the parser skipped it after a syntax
// error), if there is one.
func unreadName(src *source.File, prog *analysis.Program, name string, from, to int) (source.Pos, bool) {
	inTree := make(map[int]bool)
	grammar.Inspect(prog.File, func(n grammar.Node) bool {
		if id, ok := n.(*grammar.Ident); ok && id.Name == name {
			inTree[id.NamePos.Offset] = true
		}
		return true
	})
	sc := grammar.NewScanner(src.Text)
	for {
		t := sc.Next()
		if t.Kind == grammar.EOF || t.Pos.Offset >= to {
			return source.Pos{}, false
		}
		if t.Pos.Offset >= from && t.Text == name && !inTree[t.Pos.Offset] &&
			(t.Kind == grammar.IDENT || t.Kind.IsKeyword()) {
			return t.Pos, true
		}
	}
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
