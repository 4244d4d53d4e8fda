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

// Random hand-built programs with the statements of language version 2
// (spin loops and awaits on atomic flags, choose, trylock, condition
// variables with and without predicate loops, signal and broadcast, with
// and without the mutex), compared between dfs and sdpor: the same bugs,
// the same traces among the executions that do not stop, one sdpor
// execution per trace. (The front end's random generator joins in once
// it lands.)

// genV2 builds a random program from seed and describes it.
func genV2(seed int64) (*engine.Program, string, bool) {
	r := rand.New(rand.NewSource(seed))
	p := irtest.New()
	x := p.Array("x", 2, irtest.Atomic, 0)
	mx := p.Array("m", 2, irtest.Mutex, 0)
	cv := p.Array("c", 2, irtest.Cond, 0)
	pk := p.Array("p", 2, irtest.Plain, 0) // the predicates of the cvs, under m[k]
	var desc strings.Builder
	nThreads := 2 + r.Intn(2)
	for i := range nThreads {
		b := p.Thread(fmt.Sprint("t", i))
		fmt.Fprintf(&desc, "thread t%d {\n", i)
		v, ok := b.Temp(), b.Temp()
		for range 1 + r.Intn(3) {
			k := int32(r.Intn(2))
			xi := x + int32(r.Intn(2))
			switch r.Intn(14) {
			case 0:
				c := int64(r.Intn(3)) // 0: a write that does not let a spinner out
				b.StoreConst(xi, c)
				fmt.Fprintf(&desc, "  x%d = %d\n", xi-x, c)
			case 1:
				c := int64(r.Intn(3))
				b.Load(v, xi)
				b.Op(ir.OpNe, ok, v, b.Const(c))
				b.Assert(ok, fmt.Sprintf("x%d != %d", xi-x, c))
				fmt.Fprintf(&desc, "  assert x%d != %d\n", xi-x, c)
			case 2:
				hi := int64(2 + r.Intn(2))
				b.Choose(v, 0, hi)
				b.Store(xi, v)
				fmt.Fprintf(&desc, "  x%d = choose 0..%d\n", xi-x, hi)
			case 3:
				b.Lock(mx + k)
				addTo(b, pk+k, 1)
				b.Unlock(mx + k)
				fmt.Fprintf(&desc, "  lock m%d; p%d++; unlock\n", k, k)
			case 4:
				l := fmt.Sprint("try", b.PC())
				b.Trylock(v, mx+k)
				b.Jz(l, v)
				addTo(b, pk+k, 1)
				b.Unlock(mx + k)
				b.Label(l)
				fmt.Fprintf(&desc, "  if trylock(m%d) { p%d++; unlock }\n", k, k)
			case 5:
				b.Lock(mx + k)
				waitWhile(b, pk+k, 0, cv+k, mx+k)
				addTo(b, pk+k, -1)
				b.Unlock(mx + k)
				fmt.Fprintf(&desc, "  lock m%d; while p%d == 0 { wait(c%d) }; p%d--; unlock\n", k, k, k, k)
			case 6, 7:
				bc := r.Intn(3) == 0
				b.Lock(mx + k)
				addTo(b, pk+k, 1)
				if bc {
					b.Broadcast(cv + k)
				} else {
					b.Signal(cv + k)
				}
				b.Unlock(mx + k)
				fmt.Fprintf(&desc, "  lock m%d; p%d++; signal(c%d) broadcast=%v; unlock\n", k, k, k, bc)
			case 8:
				b.Lock(mx + k)
				b.Wait(cv+k, mx+k)
				b.Unlock(mx + k)
				fmt.Fprintf(&desc, "  lock m%d; wait(c%d); unlock\n", k, k)
			case 9:
				b.Signal(cv + k)
				fmt.Fprintf(&desc, "  signal(c%d) without the mutex\n", k)
			case 10:
				await := r.Intn(2) == 0
				b.SpinUntil(xi, await)
				fmt.Fprintf(&desc, "  while x%d == 0 {} await=%v\n", xi-x, await)
			case 11:
				// while x0 + x1 == 0 { i++ }, reading both in an atomic
				// block, with an iteration counter nobody reads.
				spinOnSum(b, v, x)
				fmt.Fprintf(&desc, "  while atomic{x0 + x1} == 0 { i++ }\n")
			case 12:
				// two tries: n = 0; while x == 0 && n < 2 { n++ }
				twoTries(b, v, ok, xi)
				fmt.Fprintf(&desc, "  n = 0; while x%d == 0 && n < 2 { n++ }\n", xi-x)
			case 13:
				b.Broadcast(cv + k)
				fmt.Fprintf(&desc, "  broadcast(c%d) without the mutex\n", k)
			}
		}
		desc.WriteString("}\n")
	}
	spurious := r.Intn(4) == 0
	fmt.Fprintf(&desc, "spurious wake-ups: %v\n", spurious)
	return p.MustBuild(), desc.String(), spurious
}

// TestV2Random compares dfs and sdpor on random programs of genV2.
func TestV2Random(t *testing.T) {
	n := int64(size(t, "WEFT_V2_PROGRAMS"))
	compared := 0
	for seed := range n {
		prog, desc, spurious := genV2(seed)
		name := fmt.Sprintf("v2 seed %d", seed)
		if !t.Run(name, func(t *testing.T) {
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: 200, MaxExecutions: dfsBudget, SpuriousWakeups: spurious}, true)
			if !ref.res.Complete {
				t.Skipf("more than %d interleavings", dfsBudget)
			}
			compared++
			checkReproduce(t, name, "dfs", prog, ref.res)
			// Odd seeds with every access a step from the start (the
			// programs are race-free: the others explore coarse steps).
			got := exploreWith(t, prog, engine.Options{Algorithm: engine.SDPOR, MaxSteps: 200, SpuriousWakeups: spurious, EveryAccess: seed%2 == 1}, true)
			checkAgainstDFS(t, name, "sdpor", prog, desc, ref, got)
		}) {
			t.Logf("%s:\n%s", name, desc)
		}
	}
	if compared < int(n)/2 {
		t.Errorf("only %d of %d programs compared", compared, n)
	}
}

// spinOnSum writes `while x0 + x1 == 0 { i++ }` (x0 at x, x1 at x+1),
// both read in one atomic block, with an iteration counter nobody reads:
// a spin that waits.
func spinOnSum(b *irtest.Body, v, x int32) {
	top, i, w := fmt.Sprint("sp", b.PC()), b.Temp(), b.Temp()
	b.Label(top)
	b.LoopHead(false)
	b.AtomicBlock(func() {
		b.Load(v, x)
		b.Load(w, x+1)
	})
	b.Op(ir.OpAdd, v, v, w)
	b.AddI(i, i, 1)
	b.Jz(top, v)
}

// twoTries writes `n = 0; while x == 0 && n < 2 { n++ }` on the location
// xi: a loop whose counter the condition reads, so it never waits.
func twoTries(b *irtest.Body, v, ok, xi int32) {
	top, out, n := fmt.Sprint("tr", b.PC()), fmt.Sprint("tro", b.PC()), b.Temp()
	b.Set(n, 0)
	b.Label(top)
	b.LoopHead(false)
	b.Load(v, xi)
	b.Jnz(out, v)
	b.Op(ir.OpLt, ok, n, b.Const(2))
	b.Jz(out, ok)
	b.AddI(n, n, 1)
	b.Jmp(top)
	b.Label(out)
}
