package engine_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/internal/irtest"
	"weft/engine/ir"
)

// Random hand-built programs with what qpor and optimal explore of
// language version 2 (spin loops and awaits on atomic flags, trylock,
// choose, plain data published through atomic flags), compared with dfs in every
// unfolding mode: the same bugs, the same traces among the executions that
// do not stop, one execution per trace, and the same spin-blocked
// executions as sdpor.

// genUnfold builds a random program from seed and describes it.
func genUnfold(seed int64) (*engine.Program, string) {
	r := rand.New(rand.NewSource(seed))
	p := irtest.New()
	x := p.Array("x", 2, irtest.Atomic, 0)
	mx := p.Array("m", 2, irtest.Mutex, 0)
	d := p.Array("d", 2, irtest.Plain, 0) // plain data, under m[k] or published through x[k]
	var desc strings.Builder
	nThreads := 2 + r.Intn(2)
	for i := range nThreads {
		b := p.Thread(fmt.Sprint("t", i))
		fmt.Fprintf(&desc, "thread t%d {\n", i)
		v, ok := b.Temp(), b.Temp()
		stmts := 1 + r.Intn(3)
		if nThreads == 3 {
			stmts = 1 + r.Intn(2) // fewer interleavings: most fit dfs's budget
		}
		for range stmts {
			k := int32(r.Intn(2))
			xi := x + k
			switch r.Intn(15) {
			case 0:
				c := int64(r.Intn(3)) // 0: a write that does not let a spinner out
				b.StoreConst(xi, c)
				fmt.Fprintf(&desc, "  x%d = %d\n", k, c)
			case 1:
				c := int64(r.Intn(3))
				b.Load(v, xi)
				b.Op(ir.OpNe, ok, v, b.Const(c))
				b.Assert(ok, fmt.Sprintf("x%d != %d", k, c))
				fmt.Fprintf(&desc, "  assert x%d != %d\n", k, c)
			case 2:
				b.Lock(mx + k)
				addTo(b, d+k, 1)
				b.Unlock(mx + k)
				fmt.Fprintf(&desc, "  lock m%d; d%d++; unlock\n", k, k)
			case 3:
				l := fmt.Sprint("try", b.PC())
				b.Trylock(v, mx+k)
				b.Jz(l, v)
				addTo(b, d+k, 1)
				b.Unlock(mx + k)
				b.Label(l)
				fmt.Fprintf(&desc, "  if trylock(m%d) { d%d++; unlock }\n", k, k)
			case 4:
				// A trylock whose mutex is kept: later locks of it block.
				b.Trylock(v, mx+k)
				fmt.Fprintf(&desc, "  trylock(m%d) (kept)\n", k)
			case 5:
				// Publish: d[k] = 7, then x[k] = 1.
				b.StoreConst(d+k, 7)
				b.StoreConst(xi, 1)
				fmt.Fprintf(&desc, "  d%d = 7; x%d = 1\n", k, k)
			case 6:
				// Consume: wait for x[k], then read d[k].
				await := r.Intn(2) == 0
				b.SpinUntil(xi, await)
				b.Load(v, d+k)
				b.Op(ir.OpNe, ok, v, b.Const(0))
				b.Assert(ok, fmt.Sprintf("d%d published", k))
				fmt.Fprintf(&desc, "  while x%d == 0 {} await=%v; assert d%d != 0\n", k, await, k)
			case 7:
				await := r.Intn(2) == 0
				b.SpinUntil(xi, await)
				fmt.Fprintf(&desc, "  while x%d == 0 {} await=%v\n", k, await)
			case 8:
				// while x0 + x1 == 0 { i++ }, reading both in an atomic
				// block, with an iteration counter nobody reads.
				spinOnSum(b, v, x)
				fmt.Fprintf(&desc, "  while atomic{x0 + x1} == 0 { i++ }\n")
			case 9:
				// two tries: n = 0; while x == 0 && n < 2 { n++ }
				twoTries(b, v, ok, xi)
				fmt.Fprintf(&desc, "  n = 0; while x%d == 0 && n < 2 { n++ }\n", k)
			case 10:
				// Look at a plain word under the mutex, twice at most (the
				// iteration locks: it never spins):
				// n = 0; loop { lock; if d != 0 || n == 1 { unlock; break }; unlock; n++ }.
				top, out, n := fmt.Sprint("ml", b.PC()), fmt.Sprint("mlo", b.PC()), b.Temp()
				b.Set(n, 0)
				b.Label(top)
				b.LoopHead(false)
				b.Lock(mx + k)
				b.Load(v, d+k)
				b.Jnz(out, v)
				b.Op(ir.OpEq, ok, n, b.Const(1))
				b.Jnz(out, ok)
				b.Unlock(mx + k)
				b.AddI(n, n, 1)
				b.Jmp(top)
				b.Label(out)
				b.Unlock(mx + k)
				fmt.Fprintf(&desc, "  n = 0; loop { lock m%d; if d%d != 0 || n == 1 { unlock; break }; unlock; n++ }\n", k, k)
			case 11:
				// Set a flag in an atomic block that reads it first.
				b.AtomicBlock(func() {
					b.Load(v, xi)
					b.AddI(v, v, 1)
					b.Store(xi, v)
				})
				fmt.Fprintf(&desc, "  atomic { x%d++ }\n", k)
			case 12:
				hi := int64(2 + r.Intn(2))
				b.Choose(v, 0, hi)
				b.Store(xi, v)
				fmt.Fprintf(&desc, "  x%d = choose 0..%d\n", k, hi)
			case 13:
				// A choice that decides what comes next: publish or lock.
				l, end := fmt.Sprint("ch", b.PC()), fmt.Sprint("che", b.PC())
				b.Choose(v, 0, 2)
				b.Jz(l, v)
				b.StoreConst(d+k, 7)
				b.StoreConst(xi, 1)
				b.Jmp(end)
				b.Label(l)
				b.Lock(mx + k)
				addTo(b, d+k, 1)
				b.Unlock(mx + k)
				b.Label(end)
				fmt.Fprintf(&desc, "  if choose 0..2 == 1 { d%d = 7; x%d = 1 } else { lock m%d; d%d++; unlock }\n", k, k, k, k)
			case 14:
				// Two choices in a row, then an assertion on them.
				w := b.Temp()
				b.Choose(v, 0, 2)
				b.Choose(w, 0, 3)
				b.Op(ir.OpAdd, v, v, w)
				b.Store(xi, v)
				b.Op(ir.OpNe, ok, v, b.Const(3))
				b.Assert(ok, "the choices add up to 3")
				fmt.Fprintf(&desc, "  x%d = choose 0..2 + choose 0..3; assert x%d != 3\n", k, k)
			}
		}
		desc.WriteString("}\n")
	}
	return p.MustBuild(), desc.String()
}

// TestUnfoldingV2Random compares every unfolding mode with dfs on random
// programs of genUnfold.
func TestUnfoldingV2Random(t *testing.T) {
	n := int64(size(t, "WEFT_V2_PROGRAMS"))
	compared := 0
	for seed := range n {
		prog, desc := genUnfold(seed)
		name := fmt.Sprintf("unfolding v2 seed %d", seed)
		if !t.Run(name, func(t *testing.T) {
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: 200, MaxExecutions: dfsBudget}, true)
			if !ref.res.Complete {
				t.Skipf("more than %d interleavings", dfsBudget)
			}
			compared++
			checkReproduce(t, name, "dfs", prog, ref.res)
			sd := exploreWith(t, prog, engine.Options{Algorithm: engine.SDPOR, MaxSteps: 200}, true)
			checkAgainstDFS(t, name, "sdpor", prog, desc, ref, sd)
			for _, mode := range qporModes {
				// Odd seeds with every access a step (no coarse tails).
				opts := engine.Options{Algorithm: mode.algo, QPOR: engine.QPOROptions{K: mode.k}, MaxSteps: 200, EveryAccess: seed%2 == 1}
				if mode.prune {
					engine.PruneAlways(&opts)
				}
				got := exploreWith(t, prog, opts, true)
				checkAgainstDFS(t, name, mode.name, prog, desc, ref, got)
				if n := engine.Anomalies(got.res); n != 0 {
					t.Errorf("%s: %d anomalies; the first: %s", mode.name, n, engine.FirstAnomaly(got.res))
				}
				if !got.res.Complete {
					t.Errorf("%s: incomplete (%s)", mode.name, got.res.Stopped)
				}
				if mode.algo == engine.Optimal && got.res.SSB != 0 {
					t.Errorf("optimal explored %d sleep-set-blocked executions", got.res.SSB)
				}
				if !hitStepBound(ref.res) && got.res.SpinBlocked != sd.res.SpinBlocked {
					t.Errorf("%s: %d spin-blocked executions, sdpor %d", mode.name, got.res.SpinBlocked, sd.res.SpinBlocked)
				}
			}
		}) {
			t.Logf("%s:\n%s", name, desc)
		}
	}
	if compared < int(n)*9/10 {
		t.Errorf("only %d of %d programs compared", compared, n)
	}
}

// TestChooseEveryMode: the choose program of TestChooseExplored in every
// unfolding mode against dfs; a bug found at one value replays to it.
func TestChooseEveryMode(t *testing.T) {
	prog := chooseProgram()
	compareQPOR(t, "choose", prog, "choose")
	for _, mode := range qporModes {
		res := exploreK(t, prog, mode.algo, mode.k, mode.prune).res
		// Traces: b reads before a's write (4 values) or after it (4).
		if res.Executions != 8 {
			t.Errorf("%s: %d executions, want 8", mode.name, res.Executions)
		}
		if len(res.Bugs) != 1 {
			t.Fatalf("%s: bugs %v", mode.name, bugKeys(res))
		}
		if bug := res.Bugs[0]; bug.Choices == nil || bug.Choices[0] != 3 || traceOf(t, bug)[0].Op != "choose v = 3" {
			t.Errorf("%s: choices %v, first step %+v", mode.name, bug.Choices, traceOf(t, bug)[0])
		}
	}
}

// TestTrylockEveryMode: the trylock program of TestTrylockExplored in
// every unfolding mode against dfs.
func TestTrylockEveryMode(t *testing.T) {
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	got := p.Var("got", irtest.Atomic, 0)
	data := p.Var("data", irtest.Plain, 0)
	for i := range 2 {
		b := p.Thread(fmt.Sprint("t", i))
		r := b.Local("r")
		b.Trylock(r, mx)
		b.Jz("no", r)
		addTo(b, got, 1)
		addTo(b, data, 1) // under the mutex: no race
		b.Unlock(mx)
		b.Label("no")
	}
	c := p.Thread("check")
	c.Lock(mx)
	v, ok := c.Temp(), c.Temp()
	c.Load(v, got)
	c.Load(v, data)
	c.Op(ir.OpLt, ok, v, c.Const(2))
	c.Assert(ok, "both took the mutex")
	c.Unlock(mx)
	prog := p.MustBuild()
	compareModes(t, "trylock", prog, "trylock")
	compareQPOR(t, "trylock", prog, "trylock")
	res := exploreProg(t, prog, engine.Options{Algorithm: engine.Optimal})
	if len(res.Bugs) != 1 || res.Bugs[0].Message != "both took the mutex" {
		t.Errorf("optimal: bugs %v", bugKeys(res))
	}
}

// TestChooseSpawned: chooses at the start of spawned threads (their first
// events: no predecessor) and after a join, in every unfolding mode
// against dfs.
func TestChooseSpawned(t *testing.T) {
	p := irtest.New()
	x := p.Array("x", 3, irtest.Atomic, 0)
	sum := p.Var("sum", irtest.Atomic, 0)
	proc, pi := p.Proc("p", 0)
	v, one := proc.Temp(), proc.Temp()
	proc.Choose(v, 0, 3)
	proc.Set(one, 1)
	proc.Emit(ir.OpCheck, 0, v, 3)
	proc.Emit(ir.OpAddI, v, v, int32(x))
	proc.Emit(ir.OpStore, one, v, 0)
	addTo(proc, sum, 1)
	m := p.Thread("main")
	t1, t2, w, ok := m.Temp(), m.Temp(), m.Temp(), m.Temp()
	m.Spawn(t1, pi, 0)
	m.Spawn(t2, pi, 0)
	m.Join(t1)
	m.Join(t2)
	m.Choose(w, 0, 2)
	m.Load(ok, sum)
	m.Op(ir.OpEq, ok, ok, m.Const(2))
	m.Assert(ok, "both ran")
	m.Load(ok, x+1)
	m.Op(ir.OpAdd, ok, ok, w)
	m.Op(ir.OpNe, ok, ok, m.Const(2))
	m.Assert(ok, "x[1] and the last choice are not both 1")
	prog := p.MustBuild()
	compareModes(t, "choose spawned", prog, "choose spawned")
	compareQPOR(t, "choose spawned", prog, "choose spawned")
}

// TestChooseManyValues: a choose of 2^16 values (WEFT_LONG=1; 2^14 by
// default) beside a reader costs each mode time linear in the values
// (pruning once looked at every value in D for every event: minutes).
func TestChooseManyValues(t *testing.T) {
	n := int64(size(t, ""))
	p := irtest.New()
	x := p.Var("x", irtest.Atomic, 0)
	a := p.Thread("a")
	v := a.Local("v")
	a.Choose(v, 0, n)
	a.Store(x, v)
	b := p.Thread("b")
	r := b.Temp()
	b.Load(r, x)
	prog := p.MustBuild()
	for _, algo := range []engine.Algorithm{engine.SDPOR, engine.QPOR, engine.Optimal} {
		res := exploreProg(t, prog, engine.Options{Algorithm: algo})
		if res.Executions != 2*n || !res.Complete {
			t.Errorf("%s: %d executions (complete %v), want %d", algo, res.Executions, res.Complete, 2*n)
		}
	}
}
