package dap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	godap "github.com/google/go-dap"

	"weft/engine"
	"weft/replay"
)

func TestEvalExpr(t *testing.T) {
	vals := map[string]string{
		"i": "2", "c": "-3", "ok": "true", "x": "{0, 7, 0}", "m": "{{1, 2}, {3, 4}}",
		"big": "{0, 0, … 99998 more}", "t": "writer[0]", "u": "writer[0]",
		"fork[0]": "phil[0]", "fork[1]": "free", "max": strconv.FormatInt(math.MaxInt64, 10),
	}
	lookup := func(n string) (string, bool) { v, ok := vals[n]; return v, ok }
	for _, c := range []struct{ expr, want, err string }{
		{"i", "2", ""},
		{"x", "{0, 7, 0}", ""},
		{"x[1]", "7", ""},
		{"x[i]", "0", ""},
		{"x[i-1] + 1", "8", ""},
		{"m[1][0]", "3", ""},
		{"m[1]", "{3, 4}", ""},
		{"fork[0]", "phil[0]", ""},
		{"fork[i-1]", "free", ""},
		{"1 + 2 * 3", "7", ""},
		{"(1 + 2) * 3", "9", ""},
		{"7 / 2", "3", ""},
		{"-7 % 3", "-1", ""},
		{"c < 0 && ok", "true", ""},
		{"1 < 2 == true", "true", ""},
		{"!ok || i == 2", "true", ""},
		{"t == u", "true", ""},
		{"x[3]", "", "out of range"},
		{"big[1]", "0", ""},
		{"big[5]", "", "not shown"},
		{"1 / (i - 2)", "", "division by zero"},
		{"max + 1", "", "overflows"},
		{"nosuch", "", "unknown name"},
		{"fork[7]", "", "unknown name \"fork[7]\""},
		{"x[", "", "ends early"},
		{"i +", "", "ends early"},
		{"i $ 2", "", "unexpected character"},
		{"ok + 1", "", "needs ints"},
		{"i[0]", "", "not an array"},
		{strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), "", "nests more than"},
		{strings.Repeat("-", 200) + "1", "", "nests more than"},
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

// TestEvaluateExpressions: the Debug Console answers indexes with a
// local of the frame's thread and simple expressions over the step's
// state (it answered bare names only).
func TestEvaluateExpressions(t *testing.T) {
	ex := loadExample(t, "fig1_racy.weft", engine.BugAssertion, replay.Options{})
	n := len(ex.doc.Steps)
	c := startInProcess(t)
	c.launch(map[string]any{"trace": ex.doc, "program": ex.path})
	c.stopped(ex, 1, "entry")
	c.do(requestGoto, map[string]any{"step": n}, nil)
	c.stopped(ex, n, "exception")
	eval := func(expr string, frame int) string {
		var res godap.EvaluateResponseBody
		c.do("evaluate", godap.EvaluateArguments{Expression: expr, FrameId: frame, Context: "repl"}, &res)
		return res.Result
	}
	master := tid(ex, "master")
	i, err := strconv.Atoi(eval("i", master))
	if err != nil {
		t.Fatalf("master's i: %v", err)
	}
	elems := splitElems(strings.Trim(eval("x", master), "{}"))
	if i < 0 || i >= len(elems) {
		t.Fatalf("i = %d, x has %d elements", i, len(elems))
	}
	for _, tc := range []struct{ expr, want string }{
		{"x[i]", elems[i]},
		{"x[0]", elems[0]},
		{"x[i] == 0", strconv.FormatBool(elems[i] == "0")},
		{"c + 1", strconv.Itoa(mustAtoi(t, eval("c", master)) + 1)},
		{"mc", eval("mc", master)},
	} {
		if got := eval(tc.expr, master); got != tc.want {
			t.Errorf("evaluate %q in master = %q, want %q", tc.expr, got, tc.want)
		}
	}
	m := c.fail("evaluate", godap.EvaluateArguments{Expression: "x[i", FrameId: master, Context: "repl"})
	if !strings.Contains(m.Message, "missing ]") && !strings.Contains(m.Message, "ends early") {
		t.Errorf("x[i answered %q", m.Message)
	}

	// A mutex array's elements, each listed on its own, indexed by an
	// expression.
	ph := loadExample(t, "philosophers_deadlock.weft", engine.BugDeadlock, replay.Options{})
	n = len(ph.doc.Steps)
	c = startInProcess(t)
	c.launch(map[string]any{"trace": ph.doc, "program": ph.path})
	c.stopped(ph, 1, "entry")
	c.do(requestGoto, map[string]any{"step": n}, nil)
	c.stopped(ph, n, "exception")
	for k := range 3 {
		frame := tid(ph, fmt.Sprintf("phil[%d]", k))
		// (A thread's instance index is no local the document lists:
		// the index is written out.)
		for _, tc := range []struct{ expr, want string }{
			{fmt.Sprintf("fork[%d]", k), fmt.Sprintf("phil[%d]", k)},
			{fmt.Sprintf("fork[(%d + 1) %% 3]", k), fmt.Sprintf("phil[%d]", (k+1)%3)},
			{fmt.Sprintf("meals[%d] == 0", k), "true"},
		} {
			if got := eval(tc.expr, frame); got != tc.want {
				t.Errorf("evaluate %q in phil[%d] = %q, want %q", tc.expr, k, got, tc.want)
			}
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not an int", s)
	}
	return n
}
