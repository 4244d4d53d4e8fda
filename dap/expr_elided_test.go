package dap

import (
	"strings"
	"testing"
)

// TestEvalExprElided: an array the step's state elides (interp's
// formatNested: "… K more" counts the words left out, and ends the
// array where it stands, nested arrays too) answers an index past what
// is shown with "not shown" while it is in range, and "out of range"
// with the array's true length once it is not; two such arrays do not
// compare equal on their shown text (their hidden elements may differ).
// Before: a [3][2] array elided in its second row said row 2 was out of
// range [0, 2), big[200000] of a 100000-element array was "not shown",
// and two elided arrays with the same shown prefix were equal.
func TestEvalExprElided(t *testing.T) {
	vals := map[string]string{
		"big":  "{0, 0, … 99998 more}",    // [100000]int, limit 2
		"big2": "{0, 0, … 99998 more}",    // another, equal as shown
		"m2":   "{{1, 2}, {3, … 3 more}}", // [3][2]int, limit 3
		"r":    "{{1, 2}, … 4 more}",      // [3][2]int, limit 2
		"w":    "{{0, 0, … 58 more}}",     // [3][20]int, limit 2: the row length is not shown
		"x":    "{0, 7, 0}",
		"y":    "{0, 7, 0}",
	}
	lookup := func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	for _, c := range []struct{ expr, want, err string }{
		{"big[1]", "0", ""},
		{"big[5]", "", "not shown"},
		{"big[99999]", "", "not shown"},
		{"big[100000]", "", "out of range [0, 100000)"},
		{"big[200000]", "", "out of range [0, 100000)"},
		{"m2[1][0]", "3", ""},
		{"m2[1][1]", "", "not shown"},
		{"m2[2]", "", "not shown"},
		{"m2[2][1]", "", "not shown"},
		{"m2[3]", "", "out of range [0, 3)"},
		{"r[1]", "", "not shown"},
		{"r[2]", "", "not shown"},
		{"r[3]", "", "out of range [0, 3)"},
		{"w[0][1]", "0", ""},
		{"w[0][2]", "", "not shown"},
		{"w[1]", "", "past what the step's state shows"},
		{"w[0][3]", "", "past what"},
		{"x == y", "true", ""},
		{"big == big2", "", "elide"},
		{"m2 != m2", "", "elide"},
		{"x[-1]", "", "out of range"},
		{"m2[-1]", "", "out of range"},
	} {
		v, err := evalExpr(c.expr, lookup)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: got %v, %v; want an error saying %q", c.expr, v, err, c.err)
		case c.err == "" && (err != nil || v.String() != c.want):
			t.Errorf("%q = %v, %v; want %s", c.expr, v, err, c.want)
		}
	}
}
