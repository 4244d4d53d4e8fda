package engine_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/ir"
)

// cdporProgram generates a small program whose threads write and read a
// few shared words with small constant values, so that the engine's own
// conditions (two writes of the same value; a read and a write of the
// value already there) hold often and fail often: plain and atomic
// variables, local copies written back, branches on what was read,
// locks, a thread array, and a main thread that joins and asserts.
func cdporProgram(r *rand.Rand) string { return cdporThreads(r, 2, 3) }

// cdporManyThreads is cdporProgram with three or four threads: the chains
// of conditional independences that lost bugs (see cdpor.go, "No-op
// swaps") need a third writer.
func cdporManyThreads(r *rand.Rand) string { return cdporThreads(r, 3, 4) }

func cdporThreads(r *rand.Rand, minThreads, maxThreads int) string {
	var b strings.Builder
	vars := []string{"x", "y", "z"}
	b.WriteString("var x int\nvar y int\nvar z atomic int\nvar m mutex\n")
	nth := minThreads + r.Intn(maxThreads-minThreads+1)
	arr := r.Intn(3) == 0
	stmt := func(ind string, n int) {
		for i := 0; i < n; i++ {
			v := vars[r.Intn(len(vars))]
			w := vars[r.Intn(len(vars))]
			c := r.Intn(2)
			switch r.Intn(9) {
			case 0, 1, 2:
				fmt.Fprintf(&b, "%s%s = %d\n", ind, v, c)
			case 3, 4:
				fmt.Fprintf(&b, "%sl%d = %s\n", ind, i, v)
				fmt.Fprintf(&b, "%sassert l%d <= 1\n", ind, i)
			case 5:
				fmt.Fprintf(&b, "%sl%d = %s\n", ind, i, v)
				fmt.Fprintf(&b, "%s%s = l%d\n", ind, w, i)
			case 6:
				fmt.Fprintf(&b, "%sif %s == %d {\n%s    %s = %d\n%s}\n", ind, v, c, ind, w, 1-c, ind)
			case 7:
				fmt.Fprintf(&b, "%slock(m)\n%s%s = %d\n%sunlock(m)\n", ind, ind, v, c, ind)
			case 8:
				fmt.Fprintf(&b, "%s%s = %d\n", ind, v, c)
				fmt.Fprintf(&b, "%s%s = %d\n", ind, v, 1-c)
			}
		}
	}
	locals := func() {
		for i := 0; i < 4; i++ {
			fmt.Fprintf(&b, "    var l%d int\n", i)
		}
	}
	for t := 0; t < nth; t++ {
		if t == 0 && arr {
			b.WriteString("thread w[i in 0..2] {\n")
		} else {
			fmt.Fprintf(&b, "thread t%d {\n", t)
		}
		locals()
		stmt("    ", 1+r.Intn(3))
		b.WriteString("}\n")
	}
	if r.Intn(2) == 0 {
		b.WriteString("thread main {\n")
		for t := 0; t < nth; t++ {
			if t == 0 && arr {
				b.WriteString("    join w[0]\n    join w[1]\n")
			} else {
				fmt.Fprintf(&b, "    join t%d\n", t)
			}
		}
		fmt.Fprintf(&b, "    assert x + y + z != %d\n", r.Intn(4))
		b.WriteString("}\n")
	}
	return b.String()
}

// TestCDPORRandom: on programs where the engine's own conditions hold
// often, CDPOR finds exactly dfs's bugs, reaches every final state of
// dfs's executions, and explores no more executions than SDPOR.
func TestCDPORRandom(t *testing.T) {
	for _, g := range []struct {
		name string
		gen  func(*rand.Rand) string
	}{{"2-3 threads", cdporProgram}, {"3-4 threads", cdporManyThreads}} {
		t.Run(g.name, func(t *testing.T) {
			forEachProgram(t, g.gen, func(t *testing.T, name string, prog *engine.Program, src string) {
				ref := dfsReference(t, prog, src, dfsBudget)
				sd := explore(t, prog, engine.SDPOR, true)
				checkCDPOR(t, name, prog, src, engine.Options{}, ref, sd)
			})
		})
	}
}

// TestCDPORLostBugs: programs on which cdpor once missed what dfs finds,
// checked with the engine's own conditions and with the analysis' tables.
// The first three lost an assertion failure through a write of a value
// that another write of it made a no-op in one order and not in the
// other (cdpor.go, "No-op swaps"; in the third, the two writes were
// merged by a table condition on locals, m + 1 == 1); the fourth lost a
// final state through a condition that held because of an earlier write
// a reversal could move
// (cdpor.go, "Backward stability"). Each fails on the engine before its
// fix.
func TestCDPORLostBugs(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"same-value writes, plain", `
var x int
var y int
var z int
thread t0 {
    var l int = x
    y = l + 1
}
thread t1 {
    z = 1
    var m int = y
    x = m + 1
}
thread t2 {
    x = 1
}
thread main {
    join t0
    join t1
    join t2
    assert x + y != 5
}`},
		{"same-value writes, atomic blocks", `
var x int
var y int
var z int
thread t0 {
    var l int
    atomic { l = x }
    atomic { y = l + 1 }
}
thread t1 {
    var m int
    atomic { z = 1 }
    atomic { m = y }
    atomic { x = m + 1 }
}
thread t2 {
    atomic { x = 1 }
}
thread main {
    join t0
    join t1
    join t2
    var s int
    atomic { s = x + y }
    assert s != 5
}`},
		{"a block and a write of one value, then a read of it", `
var x atomic int
var y atomic int
var z atomic int
thread t0 {
    var l int = x
    y = l + 1
}
thread t1 {
    z = 1
    var m int = y
    atomic { x = m + 1 }
}
thread t2 {
    x = 1
}
thread main {
    join t0
    join t1
    join t2
    var s int = x
    s = s + y
    assert s != 5
}`},
		{"a condition held by an earlier write", `
var x int
var y int
var a [2]int
thread t[i in 0..2] {
    atomic {
        x = 1
    }
    atomic {
        a[i] = y
    }
}
thread u {
    var l int
    atomic {
        l = x
        y = l + 1
    }
}
thread main {
    join t[0]
    join t[1]
    join u
    var s int
    atomic {
        s = x + y + a[0] + a[1]
    }
    assert s != 4
}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := load(t, c.name, c.src)
			ref := dfsReference(t, prog, c.src, dfsBudget)
			sd := explore(t, prog, engine.SDPOR, true)
			checkCDPOR(t, c.name, prog, c.src, engine.Options{}, ref, sd)
			for _, k := range tableKinds {
				t.Run(k.name, func(t *testing.T) {
					cs := analysisTable(t, c.name, c.src, k.smt, k.noOverflow)
					checkCDPOR(t, c.name+" "+k.name, prog, c.src, engine.Options{CDPOR: engine.CDPOROptions{Constraints: cs}}, ref, sd)
				})
			}
		})
	}
}

// TestCDPORCounts: the executions CDPOR explores on programs where the
// engine's own conditions merge traces, next to SDPOR's.
func TestCDPORCounts(t *testing.T) {
	for _, c := range []struct {
		name         string
		src          string
		sdpor, cdpor int64
	}{
		// Two writes of one value commute only where the word holds it
		// already (both do nothing; cdpor.go, "No-op swaps").
		{"same value, then another", `
var x int
thread a { x = 1 }
thread b {
    x = 1
    x = 2
}`, 3, 3},
		{"three writers of one value", `
var x int
thread a { x = 1 }
thread b { x = 1 }
thread c { x = 1 }`, 6, 3},
		{"two writers of the value there", `
var x int = 1
thread a { x = 1 }
thread b { x = 1 }`, 2, 1},
		{"a read and a write of the value there", `
var x int
thread a { var v int = x; assert v == 0 }
thread b { x = 0 }`, 2, 1},
		{"a read and a write of another value", `
var x int
thread a { var v int = x; assert v <= 1 }
thread b { x = 1 }`, 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := load(t, c.name, c.src)
			ref := dfsReference(t, prog, c.src, dfsBudget)
			sd := explore(t, prog, engine.SDPOR, true)
			if sd.nonStopped != c.sdpor {
				t.Errorf("sdpor: %d executions, want %d", sd.nonStopped, c.sdpor)
			}
			checkCDPOR(t, c.name, prog, c.src, engine.Options{}, ref, sd)
			got := explore(t, prog, engine.CDPOR, false)
			if got.nonStopped != c.cdpor {
				t.Errorf("cdpor: %d executions, want %d", got.nonStopped, c.cdpor)
			}
			var checked int64
			for _, s := range got.res.Independence {
				checked += s.Checked
			}
			if checked == 0 {
				t.Errorf("cdpor evaluated no condition")
			}
		})
	}
}

// atomicSites lists the sites of the atomic blocks of prog, body by body.
func atomicSites(prog *engine.Program) []ir.Site {
	var out []ir.Site
	for bi, b := range prog.Bodies {
		for pc, in := range b.Code {
			if in.Op == ir.OpAtomic {
				out = append(out, ir.Site{Body: int32(bi), PC: int32(pc)})
			}
		}
	}
	return out
}

// everySite maps every pc of every body to all of memory: the W of the
// constraints a test builds by hand (nothing is known to be left
// unwritten, so only constraints that read no shared word are uniform).
func everySite(prog *engine.Program, cs *ir.Constraints) {
	cs.Writes = map[ir.Site][]ir.LocRange{}
	for bi, b := range prog.Bodies {
		for pc := range b.Code {
			cs.Writes[ir.Site{Body: int32(bi), PC: int32(pc)}] = []ir.LocRange{{Lo: 0, Hi: int32(len(prog.Locations))}}
		}
	}
}

// TestCDPORConstraints: constraints handed over for atomic blocks. Pi's
// workers add their partial sums to one accumulator: `true` for every
// pair of adds leaves one execution where SDPOR has n!; the final states
// are dfs's. A constraint that reads a word another live thread writes
// is not uniform and not used.
func TestCDPORConstraints(t *testing.T) {
	pi := func(n int) string {
		return fmt.Sprintf(`
var pi atomic int
thread w[i in 0..%d] {
    var s int = i * 3 + 1000
    atomic { pi = pi + s }
}`, n)
	}
	for _, c := range []struct {
		name         string
		src          string
		cond         ir.CExpr
		reads        []ir.LocRange
		sdpor, cdpor int64
	}{
		{"pi 4, true", pi(4), ir.CExpr{Op: ir.CConst, Value: 1}, nil, 24, 1},
		{"pi 4, false", pi(4), ir.CExpr{Op: ir.CConst, Value: 0}, nil, 24, 24},
		// pi >= 0 holds everywhere, but it reads shared memory, and
		// cdpor uses no such condition of a table (cdpor.go, "No-op
		// swaps").
		{"pi 3, on shared memory", pi(3), ir.CExpr{Op: ir.CGe, Args: []ir.CExpr{{Op: ir.CShared, Loc: 0}, {Op: ir.CConst}}}, []ir.LocRange{{Lo: 0, Hi: 1}}, 6, 6},
		// the locals of both sides: s differs between any two workers.
		{"pi 3, same s", pi(3), ir.CExpr{Op: ir.CEq, Args: []ir.CExpr{{Op: ir.CLocal, Side: 0, Slot: -1}, {Op: ir.CLocal, Side: 1, Slot: -1}}}, nil, 6, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := load(t, c.name, c.src)
			sites := atomicSites(prog)
			if len(sites) != 1 {
				t.Fatalf("%d atomic sites, want 1", len(sites))
			}
			cond := c.cond
			if cond.Op == ir.CEq && cond.Args[0].Op == ir.CLocal {
				slot := slotOfLocal(t, prog, sites[0], "s")
				cond.Args[0].Slot, cond.Args[1].Slot = slot, slot
			}
			cs := &ir.Constraints{RaceFree: true}
			everySite(prog, cs)
			cs.Add(sites[0], sites[0], ir.Constraint{Cond: cond, Reads: c.reads, Origin: "test", Text: "test"})
			ref := dfsReference(t, prog, c.src, dfsBudget)
			sd := explore(t, prog, engine.SDPOR, true)
			if sd.nonStopped != c.sdpor {
				t.Errorf("sdpor: %d executions, want %d", sd.nonStopped, c.sdpor)
			}
			checkCDPOR(t, c.name, prog, c.src, engine.Options{CDPOR: engine.CDPOROptions{Constraints: cs}}, ref, sd)
			got := exploreWith(t, prog, engine.Options{Algorithm: engine.CDPOR, CDPOR: engine.CDPOROptions{Constraints: cs}}, false)
			if got.nonStopped != c.cdpor {
				t.Errorf("cdpor: %d executions, want %d", got.nonStopped, c.cdpor)
			}
			if !got.res.Complete {
				t.Errorf("cdpor: not complete (%s)", got.res.Stopped)
			}
		})
	}
	// Without RaceFree, atomic blocks synchronise and are never merged.
	prog := load(t, "pi 3", pi(3))
	cs := &ir.Constraints{}
	everySite(prog, cs)
	s := atomicSites(prog)[0]
	cs.Add(s, s, ir.Constraint{Cond: ir.CExpr{Op: ir.CConst, Value: 1}})
	if got := exploreWith(t, prog, engine.Options{Algorithm: engine.CDPOR, CDPOR: engine.CDPOROptions{Constraints: cs}}, false); got.nonStopped != 6 {
		t.Errorf("pi 3 without RaceFree: cdpor explored %d executions, want sdpor's 6", got.nonStopped)
	}
}

// slotOfLocal finds the frame slot of local name at site s: the slot the
// lowered code stores the initialiser of `var name int = …` in is found
// by running the program's first thread to the site and reading the
// value the source gives it (i*3+1000 for instance i).
func slotOfLocal(t *testing.T, prog *engine.Program, s ir.Site, name string) int32 {
	t.Helper()
	m := engine.NewMachine(prog)
	for ti, th := range m.Threads {
		if ti > 0 && th.PC == s.PC && int32(indexOfBody(prog, th.Body)) == s.Body { // (instance 0's 1000 is also a constant)
			want := int64(ti*3 + 1000)
			// (A temporary may hold the same value: any slot that
			// holds it at the site will do.)
			for i, v := range th.Frame {
				if v == want {
					return int32(i)
				}
			}
		}
	}
	t.Fatalf("local %s not found at %v", name, s)
	return -1
}

func indexOfBody(prog *engine.Program, b *ir.Body) int {
	for i, x := range prog.Bodies {
		if x == b {
			return i
		}
	}
	return -1
}
