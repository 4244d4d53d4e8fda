package access

import (
	"context"
	"errors"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/engine/ir"
	"weft/source"
)

// TestV2Steps: the steps of language version 2 are analyzed, each
// statement showing them (a call with what its function does).
func TestV2Steps(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"var x int\nfunc f() int {\n    return x\n}\nthread t {\n    x = f()\n}\n",
			"t via f 3:5: read x\nt 6:5: call f reads x; write x\nt 7:1: end\n"},
		{"var x int\nthread t {\n    x = choose 0..2\n}\n", "t 3:5: choose; write x\nt 4:1: end\n"},
		{"var m mutex\nthread t {\n    if trylock(m) {\n        unlock(m)\n    }\n}\n",
			"t 3:5: trylock m\nt 4:9: unlock m\nt 6:1: end\n"},
		{"var m mutex\nvar cv cond\nthread t {\n    lock(m)\n    wait(cv, m)\n    unlock(m)\n}\n",
			"t 4:5: lock m\nt 5:5: wait cv, m; wake cv, m\nt 6:5: unlock m\nt 7:1: end\n"},
		{"var cv [2]cond\nproc p(k int) {\n    signal(cv[k])\n    broadcast(cv[1])\n}\nthread t {\n    spawn p(0)\n}\n",
			"p 3:5: signal cv[*]\np 4:5: broadcast cv[1]\np 5:1: end\nt 7:5: spawn p\nt 8:1: end\n"},
		{"var x int\nthread t {\n    while x < 2 {\n        x++\n    }\n    await x > 1\n}\n",
			"t 3:5: read x\nt 4:9: read x; write x\nt 6:5: read x\nt 7:1: end\n"},
	} {
		ld := lower.Load("v2.weft", []byte(tc.src))
		if ld.Exec == nil {
			t.Fatalf("not lowered: %v\n%s", ld.Diagnostics, tc.src)
		}
		s, err := Analyze(context.Background(), ld.Program, ld.Exec)
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		var b strings.Builder
		for _, st := range s.Statements() {
			b.WriteString(st.String() + "\n")
		}
		if b.String() != tc.want {
			t.Errorf("%s: got\n%swant\n%s", tc.src, b.String(), tc.want)
		}
	}
}

// TestUnsupported: a program with an operation this package does not
// know (one the IR would gain later) gets no facts: ErrUnsupported,
// saying what and where.
func TestUnsupported(t *testing.T) {
	prog := &ir.Program{Bodies: []*ir.Body{{Name: "t",
		Code:   []ir.Instr{{Op: ir.OpNop}, {Op: ir.Op(250)}, {Op: ir.OpEnd}},
		Ranges: make([]source.Range, 3)}}}
	prog.Bodies[0].Ranges[1].Start = source.Pos{Line: 2, Col: 4}
	err := unsupported(prog)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "t uses operation op(250) at") {
		t.Errorf("got %v, want ErrUnsupported naming the operation", err)
	}
	ld := lower.Load("ok.weft", []byte("var x int\nthread t {\n    x = 1\n}\n"))
	if err := unsupported(ld.Exec); err != nil {
		t.Errorf("a program of known operations: %v", err)
	}
}
