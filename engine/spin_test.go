package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/internal/irtest"
	"weft/engine/ir"
)

// The v2 semantics on hand-built programs (the front end builds them
// from source once it lands): spin loops that wait, in dfs and sdpor.

// handoffProg is the handoff: the producer writes data, then
// raises the flag; the consumer spins on the flag (a while loop, or an
// await), then checks the data. raiseFirst raises the flag before
// writing the data (the broken variant). data is atomic here: whether
// the plain version races is the race detector's business.
func handoffProg(await, raiseFirst bool) *engine.Program {
	p := irtest.New()
	flag := p.Var("flag", irtest.Atomic, 0)
	data := p.Var("data", irtest.Atomic, 0)
	pr := p.Thread("producer")
	if raiseFirst {
		pr.StoreConst(flag, 1)
		pr.StoreConst(data, 42)
	} else {
		pr.StoreConst(data, 42)
		pr.StoreConst(flag, 1)
	}
	c := p.Thread("consumer")
	c.SpinUntil(flag, await)
	v, ok := c.Temp(), c.Temp()
	c.Load(v, data)
	c.Op(ir.OpEq, ok, v, c.Const(42))
	c.Assert(ok, "data published before flag")
	return p.MustBuild()
}

func exploreProg(t *testing.T, prog *engine.Program, opts engine.Options) *engine.Result {
	t.Helper()
	if opts.MaxSteps == 0 {
		opts.MaxSteps = 200
	}
	res, err := engine.Explore(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s: bug %d (%s) does not reproduce: %v", opts.Algorithm, i+1, b.Message, err)
		}
	}
	return res
}

// TestSpinHandoff: the handoff verifies in dfs and sdpor with spin loops
// that wait, each execution in which the consumer read the flag too early
// being spin-blocked; the broken variant fails its assertion.
func TestSpinHandoff(t *testing.T) {
	for _, await := range []bool{false, true} {
		for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
			name := fmt.Sprintf("%s await=%v", algo, await)
			res := exploreProg(t, handoffProg(await, false), engine.Options{Algorithm: algo})
			if len(res.Bugs) != 0 || !res.Complete {
				t.Errorf("%s: bugs %v, complete %v", name, bugKeys(res), res.Complete)
			}
			// One execution counts: the consumer reads the flag after it
			// is raised. dfs has two spin-blocked ones (the read before
			// either write, and between them), sdpor at least one.
			if res.Executions != 1 {
				t.Errorf("%s: %d executions, want 1", name, res.Executions)
			}
			if algo == engine.DFS && res.SpinBlocked != 2 || res.SpinBlocked < 1 {
				t.Errorf("%s: %d spin-blocked executions", name, res.SpinBlocked)
			}
			res = exploreProg(t, handoffProg(await, true), engine.Options{Algorithm: algo})
			if len(res.Bugs) != 1 || res.Bugs[0].Kind != engine.BugAssertion {
				t.Errorf("%s: raising the flag first: bugs %v, want the assertion", name, bugKeys(res))
			}
		}
	}
}

// TestSpinDeadlock: a thread that spins on a flag nobody raises is a
// deadlock whose message says it spins and on what.
func TestSpinDeadlock(t *testing.T) {
	p := irtest.New()
	flag := p.Var("flag", irtest.Atomic, 0)
	x := p.Var("x", irtest.Atomic, 0)
	other := p.Thread("other")
	other.StoreConst(x, 1)
	c := p.Thread("consumer")
	c.SpinUntil(flag, false)
	prog := p.MustBuild()
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
		res := exploreProg(t, prog, engine.Options{Algorithm: algo})
		if len(res.Bugs) != 1 || res.Bugs[0].Kind != engine.BugDeadlock {
			t.Fatalf("%s: bugs %v, want one deadlock", algo, bugKeys(res))
		}
		want := "deadlock: consumer spins forever at line 2 (read flag = 0, which no thread changes again)"
		if msg := res.Bugs[0].Message; msg != want {
			t.Errorf("%s: message %q, want %q", algo, msg, want)
		}
		if res.SpinBlocked != 0 {
			t.Errorf("%s: %d spin-blocked executions, want none", algo, res.SpinBlocked)
		}
	}
	// Without spin-waiting the loop runs into the step bound.
	for _, algo := range []engine.Algorithm{engine.DFS, engine.SDPOR} {
		res := exploreProg(t, prog, engine.Options{Algorithm: algo, NoSpinWait: true, MaxSteps: 20})
		if !hitStepBound(res) {
			t.Errorf("%s with NoSpinWait: bugs %v, want a step-bound bug", algo, bugKeys(res))
		}
	}
}

// TestSpinPeterson: Peterson's algorithm with plain while spin loops
// verifies without a step bound in sight, and with the broken entry (the
// turn given before the flag is raised) fails mutual exclusion; dfs and
// sdpor agree trace by trace.
func TestSpinPeterson(t *testing.T) {
	for _, broken := range []bool{false, true} {
		p := irtest.New()
		flag := p.Array("flag", 2, irtest.Atomic, 0)
		turn := p.Var("turn", irtest.Atomic, 0)
		inside := p.Var("inside", irtest.Atomic, 0)
		for me := range 2 {
			other := 1 - me
			th := p.Thread(fmt.Sprintf("p[%d]", me))
			f, tu, n, ok := th.Temp(), th.Temp(), th.Temp(), th.Temp()
			if broken {
				th.StoreConst(turn, int64(other))
				th.StoreConst(flag+int32(me), 1)
			} else {
				th.StoreConst(flag+int32(me), 1)
				th.StoreConst(turn, int64(other))
			}
			// while flag[other] == 1 && turn == other {}
			th.Label("top")
			th.LoopHead(false)
			th.Load(f, flag+int32(other))
			th.Jz("enter", f)
			th.Load(tu, turn)
			th.Op(ir.OpEq, ok, tu, th.Const(int64(other)))
			th.Jnz("top", ok)
			th.Label("enter")
			th.Load(n, inside)
			th.AddI(n, n, 1)
			th.Store(inside, n)
			th.Load(n, inside)
			th.Op(ir.OpEq, ok, n, th.Const(1))
			th.Assert(ok, "mutual exclusion")
			th.Load(n, inside)
			th.AddI(n, n, -1)
			th.Store(inside, n)
			th.StoreConst(flag+int32(me), 0)
		}
		prog := p.MustBuild()
		name := map[bool]string{false: "peterson", true: "peterson broken"}[broken]
		compareModes(t, name, prog, name)
		res := exploreProg(t, prog, engine.Options{Algorithm: engine.SDPOR})
		// (Each thread's assertion is a place of its own here.)
		if got := strings.Join(bugKeys(res), ","); broken && !strings.HasPrefix(got, "assertion@") || strings.Contains(got, "deadlock") || !broken && got != "" {
			t.Errorf("%s: bugs %q", name, got)
		}
	}
}
