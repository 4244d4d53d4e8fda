package query

import (
	"testing"

	"weft/analysis"
	"weft/grammar"
)

// TestScopesAgreeWithChecker: in every source of the corpus (with its
// errors) and in a generated model, every identifier that the checker
// resolved looks up, in the scope tree at its position, to the object the
// checker recorded; every name Complete could offer there includes it.
func TestScopesAgreeWithChecker(t *testing.T) {
	sources := corpus(t)
	sources["generated"] = generateModel(300)
	sources["edge"] = []byte(`const A = 1
var x int
thread t[A in 0..2] {
    var x int = x + A
    for x in 0..x {
        var x bool = x > 0
        if x { var A int = 2; x = A > 1 } else { x = A > 0 }
    }
    var y int = x
    x = y
}
proc p(x int, y bool) {
    var z int = x
    { var x int = z; z = x }
    while y { var y int = x; x = y; break }
    atomic { x = A }
}
thread x {}
`)
	for name, src := range sources {
		file, perrs := grammar.ParseFile(name, src)
		prog := analysis.Check(file)
		trees := []*scopeTree{buildScopes(prog, nil)}
		if len(perrs) == 0 {
			trees = append(trees, buildScopes(prog, src))
		}
		for _, tree := range trees {
			uses := 0
			for id, obj := range prog.Uses {
				if obj.Ident == id {
					continue
				}
				uses++
				s := tree.innermost(id.NamePos.Offset)
				if got := lookup(s, id.Name, id.NamePos.Offset); got != obj {
					t.Errorf("%s: %s at %s: the scopes say %s, the checker %s at %s",
						name, id.Name, id.NamePos, describeObj(got), obj.Kind, declPos(obj))
				}
				found := false
				visible(s, id.NamePos.Offset, func(o *analysis.Object) { found = found || o == obj })
				if !found {
					t.Errorf("%s: %s at %s is not among the visible names", name, id.Name, id.NamePos)
				}
			}
			if name == "edge" && uses < 15 {
				t.Errorf("edge: only %d uses", uses)
			}
		}
	}
}

func describeObj(o *analysis.Object) string {
	if o == nil {
		return "nothing"
	}
	return o.Kind.String() + " at " + declPos(o)
}

func declPos(o *analysis.Object) string {
	if o.Ident == nil {
		return "-"
	}
	return o.Ident.NamePos.String()
}

// TestUnclosedBlocksExtend: with the text, a body or block whose closing
// brace is missing reaches the next declaration (or the end), so the
// names declared in it are visible where the cursor is.
func TestUnclosedBlocksExtend(t *testing.T) {
	for _, marked := range []string{
		"thread t {\n    var count int\n    if true {\n        count = 1\n    ‸",
		"thread t {\n    var count int\n    count = co‸",
		"thread t {\n    var count int\n    while count > 0 {\n    }\n\n‸\nthread u {}\n",
		"proc p(count int) {\n    x = 1 +‸",
	} {
		m := parseModel(t, marked)
		off := m.pos(t, "").Offset
		tree := buildScopes(m.prog, m.src.Text)
		if obj := lookup(tree.innermost(off), "count", off); obj == nil {
			t.Errorf("%q: count is not visible at the cursor", marked)
		}
	}
}
