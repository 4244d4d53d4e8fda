package indep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"weft/analysis"
	"weft/analysis/access"
	"weft/analysis/icond"
	"weft/analysis/lower"
	"weft/engine/interp"
	"weft/engine/ir"
	"weft/grammar"
)

// TestLocalSlots checks that a compiled local, evaluated on the frame of
// the thread standing at a statement's step (the innermost frame:
// interp.Thread.Frame), is the local's value there: a thread array's
// index, a local of the thread's body, a function's parameter and a
// local of a proc.
func TestLocalSlots(t *testing.T) {
	src := `
var x int
func f(k int) {
    var u int = k * 2
    atomic {
        x = u
    }
    atomic {
        x = k
    }
}
proc p(q int) {
    var z int = q - 1
    atomic {
        x = z
    }
}
thread t[i in 0..3] {
    var v int = i + 10
    atomic {
        x = v
    }
    atomic {
        x = i
    }
    f(i + 20)
    spawn p(i + 30)
}
`
	ld := lower.Load("model.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatal(ld.Diagnostics)
	}
	sum, err := access.Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(context.Background(), ld.Program, ld.Exec, sum, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// want gives a local's value from the instance index n.
	want := map[string]func(n int64) int64{
		"v": func(n int64) int64 { return n + 10 },
		"i": func(n int64) int64 { return n },
		"k": func(n int64) int64 { return n + 20 },
		"u": func(n int64) int64 { return 2 * (n + 20) },
		"z": func(n int64) int64 { return n + 29 },
	}
	bodyIndex := map[*ir.Body]int{}
	for i, b := range ld.Exec.Bodies {
		bodyIndex[b] = i
	}
	m := interp.NewMachine(ld.Exec, 0)
	seen := map[string]int{}
	var ev interp.Event
	for steps := 0; steps < 200; steps++ {
		progress := false
		for x := range m.Threads {
			th := m.Threads[x]
			if th.Status != interp.Ready || !m.Enabled(x) {
				continue
			}
			st, _ := sum.StepAt(bodyIndex[th.Body], int(th.PC))
			if a, ok := st.Node.(*grammar.AtomicStmt); ok {
				as := a.Body.Stmts[0].(*grammar.AssignStmt)
				obj := ld.Program.Uses[as.RHS.(*grammar.Ident)]
				c, _, err := compile(&icond.Expr{Op: icond.Var, Obj: obj})
				if err != nil {
					t.Fatal(err)
				}
				got, ok := c.Eval(liveState{m.Mem, [2][]int64{th.Frame, nil}})
				n := instance(th, m)
				if w := want[obj.Name](n); !ok || got != w {
					t.Errorf("%s at %s: %s is %d (ok %v), want %d", th.Name, st, obj.Name, got, ok, w)
				}
				seen[obj.Name]++
			}
			if !m.Step(x, &ev) {
				t.Fatalf("stopped: %s", ev.Message)
			}
			progress = true
			break
		}
		if !progress {
			break
		}
	}
	for name := range want {
		if seen[name] == 0 {
			t.Errorf("%s never evaluated", name)
		}
	}
	_ = r
}

// instance is the index of the thread array instance that th is or
// descends from.
func instance(th *interp.Thread, m *interp.Machine) int64 {
	for th.Parent >= 0 {
		th = m.Threads[th.Parent]
	}
	var n int64
	if i := strings.Index(th.Name, "["); i >= 0 {
		fmt.Sscanf(th.Name[i:], "[%d]", &n)
	}
	return n
}

// TestSynthesizePlumbing checks that a Synthesizer is asked about pairs
// of atomic blocks only, that its conditions reach the pairs and the
// engine's table for the blocks' sites, and that its notes and errors
// are kept. (The synthesis itself is package synth's.)
func TestSynthesizePlumbing(t *testing.T) {
	src := `
var x int
var z int
thread q {
    atomic {
        if z >= 0 {
            z = x
        }
    }
}
thread r {
    atomic {
        x = x + 1
        z = z + 1
    }
    x = 5
}
`
	ld := lower.Load("model.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatal(ld.Diagnostics)
	}
	sum, err := access.Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		t.Fatal(err)
	}
	zv := ld.Program.Lookup("z")
	asked := 0
	fake := func(_ context.Context, a, b *access.Statement) ([]icond.Condition, string, error) {
		asked++
		if _, ok := a.Node.(*grammar.AtomicStmt); !ok {
			t.Errorf("asked about %s", a)
		}
		if _, ok := b.Node.(*grammar.AtomicStmt); !ok {
			t.Errorf("asked about %s", b)
		}
		if asked == 2 {
			return nil, "", errors.New("solver gone")
		}
		return []icond.Condition{
			{Expr: icond.Bin(icond.Le, &icond.Expr{Op: icond.Var, Obj: zv}, icond.Int(-2)), Origin: "smt"},
			{Expr: icond.True(), Origin: "smt"},
		}, "a note", nil
	}
	r, err := Analyze(context.Background(), ld.Program, ld.Exec, sum, Options{Synthesize: fake})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once (one pair of atomic blocks)", asked)
	}
	if len(r.Notes) != 0 {
		t.Errorf("notes %v with a synthesizer", r.Notes)
	}
	var found *Pair
	for _, p := range r.Pairs {
		if isAtomic(p.A) && isAtomic(p.B) {
			found = p
		}
	}
	if found == nil {
		t.Fatal("no pair of atomic blocks")
	}
	// z <= -2 reads a shared word: shown, not given to the engine (its
	// truth would depend on the order of other steps); true is both.
	conds := map[string]Cond{}
	for _, c := range found.Conditions {
		if c.Origin == "smt" {
			conds[c.Text] = c
		}
	}
	if c, ok := conds["z <= -2"]; !ok || c.Engine {
		t.Errorf("z <= -2: %+v, want shown and not for the engine", c)
	}
	if c, ok := conds["true"]; !ok || !c.Engine {
		t.Errorf("true: %+v, want shown and for the engine", c)
	}
	if len(found.Notes) != 1 || found.Notes[0] != "a note" {
		t.Fatalf("pair %+v", found)
	}
	sa, sb := r.Sites(found.A), r.Sites(found.B)
	if len(sa) != 1 || len(sb) != 1 {
		t.Fatalf("sites %v %v", sa, sb)
	}
	cs := r.Constraints().Pairs[[2]ir.Site{sa[0], sb[0]}]
	if len(cs) != 1 || cs[0].Text != "true" || cs[0].Origin != "smt" {
		t.Fatalf("table %+v", cs)
	}
	if len(cs[0].Reads) != 0 {
		t.Errorf("G(C) %v, want none", cs[0].Reads)
	}
	mem := make([]int64, len(ld.Exec.Init))
	if !cs[0].Holds(liveState{mem, [2][]int64{}}) {
		t.Error("true does not hold")
	}
	var _ analysis.Program
}
