package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"

	"weft/analysis/lower"
	"weft/engine"
)

// The random-program generators of the differential tests.
//
// randomProgram makes programs whose every execution ends (well within
// the tests' step bound of 2,000), so that an exploration's count can be
// compared with dfs's; spinProgram makes programs with spin-waits, some of
// whose executions never end, to be explored with the step bound
// spinMaxSteps and compared by bugs only. Both only return programs that
// dfs explores in at most genMaxInterleavings interleavings (under that
// step bound), so that every seed can be compared: a test need not give
// up on any.

// genMaxInterleavings bounds the dfs interleavings of every generated
// program: a program over it is thrown away and another one drawn.
const genMaxInterleavings = 5000

// spinMaxSteps is the step bound spin programs are explored with: small,
// so that dfs can enumerate every interleaving of a spinning thread with
// the others (the number of interleavings grows like the bound to the
// power of the other threads' steps). Each spin program says so in its
// first line, "// max-steps: 16", for tests that read the bound from the
// source.
const spinMaxSteps = 16

// randomProgram generates a small Weft program: 2–4 threads over a few
// shared variables, two mutexes (sometimes taken nested, in either order,
// so deadlocks happen) and an array, with branches on plain shared reads
// and on values read under synchronisation (so some data races appear
// only deep in an exploration), atomic blocks (increments, sometimes
// under locks, on variables also accessed plainly), assertions, retry
// loops that end, and sometimes spawn/join.
func randomProgram(r *rand.Rand) string { return generate(r, false) }

// spinProgram generates a small program in which a thread waits for a
// flag that another one sets after a few steps of its own: a plain or
// atomic flag read in a loop, or read under a mutex in a retry loop. Some
// schedules spin until the step bound: explore it with MaxSteps
// spinMaxSteps, and compare bugs, not counts.
func spinProgram(r *rand.Rand) string { return generate(r, true) }

// generate draws programs until one is small enough for dfs.
func generate(r *rand.Rand, spin bool) string {
	for {
		g := &progGen{r: r}
		var src string
		if spin {
			src = g.spinProgram()
		} else {
			src = g.program()
		}
		if fitsDFS(src, spin) {
			return src
		}
		genRejected++
	}
}

// genRejected counts the programs generate threw away (for TestHunt's
// summary).
var genRejected int

// fitsDFS reports whether dfs explores src in at most genMaxInterleavings
// interleavings. A program that does not load is returned as is (the test
// loading it then shows the generator's mistake).
func fitsDFS(src string, spin bool) bool {
	prog, ok := tryLoad(src)
	if !ok {
		return true
	}
	opts := engine.Options{Algorithm: engine.DFS, MaxSteps: 2000, MaxExecutions: genMaxInterleavings + 1}
	if spin {
		opts.MaxSteps = spinMaxSteps
	}
	res, err := engine.Explore(context.Background(), prog, opts)
	return err != nil || res.Complete
}

// tryLoad is load without a test: ok is false if src has an error.
func tryLoad(src string) (*engine.Program, bool) {
	ld := lower.Load("generated", []byte(src))
	for _, d := range ld.Diagnostics {
		if d.Severity == 1 {
			return nil, false
		}
	}
	return ld.Exec, ld.Exec != nil
}

// progGen is the state of one program being generated.
type progGen struct {
	r    *rand.Rand
	sb   strings.Builder
	vars []string // shared ints
	// plain are the vars that are not atomic, sync those that are (read
	// without a race, a guard on them makes a race that needs a
	// particular order to show up).
	plain, sync []string
	budget      int     // visible steps the current thread may still get (roughly)
	held        [2]bool // the mutexes m0, m1 the statement being written is under
}

// free picks a mutex the current statement is not under (-1 if none):
// relocking one is a runtime error, which would stop most executions
// early.
func (g *progGen) free() int {
	m := g.r.Intn(2)
	if g.held[m] {
		m = 1 - m
	}
	if g.held[m] {
		return -1
	}
	return m
}

// locked writes "lock(mM)", body, "unlock(mM)".
func (g *progGen) locked(m int, ind string, body func()) {
	fmt.Fprintf(&g.sb, "%slock(m%d)\n", ind, m)
	g.held[m] = true
	body()
	g.held[m] = false
	fmt.Fprintf(&g.sb, "%sunlock(m%d)\n", ind, m)
}

func (g *progGen) declare() {
	g.vars = []string{"x", "y", "z"}[:1+g.r.Intn(3)]
	for _, v := range g.vars {
		if g.r.Intn(4) == 0 {
			fmt.Fprintf(&g.sb, "var %s atomic int\n", v)
			g.sync = append(g.sync, v)
		} else {
			fmt.Fprintf(&g.sb, "var %s int\n", v)
			g.plain = append(g.plain, v)
		}
	}
	g.sb.WriteString("var arr [2]int\nvar m0 mutex\nvar m1 mutex\n")
}

func (g *progGen) program() string {
	r := g.r
	g.declare()
	useProc := r.Intn(4) == 0
	if useProc {
		g.sb.WriteString("proc helper(v int) {\n    var l int\n    var b bool\n    l = v\n")
		g.budget = 3
		g.body(2, "    ")
		g.sb.WriteString("    b = l > 100 || b\n    assert l < 1000 || b\n}\n")
	}
	threads := 2 + r.Intn(3)
	spawners := 1 + r.Intn(2) // threads t0 (and t1) spawn the helper
	joinDeclared := r.Intn(3) == 0
	for t := 0; t < threads; t++ {
		fmt.Fprintf(&g.sb, "thread t%d {\n    var l int\n    var b bool\n", t)
		spawns := useProc && t < spawners
		if spawns {
			fmt.Fprintf(&g.sb, "    var h tid = spawn helper(%d)\n", t+1)
		}
		// Fewer steps each when there are more threads: the
		// interleavings grow like the multinomial of the steps.
		g.budget = []int{0, 0, 8, 5, 4}[threads]
		g.body(1+r.Intn(3), "    ")
		if spawns {
			g.sb.WriteString("    join h\n")
		}
		if joinDeclared && t == threads-1 {
			g.sb.WriteString("    join t0\n    l = x\n")
		}
		g.sb.WriteString("    b = l > 100 || b\n    assert l < 1000 || b\n}\n")
	}
	return g.sb.String()
}

func (g *progGen) v() string { return g.vars[g.r.Intn(len(g.vars))] }

// plainVar is a non-atomic shared variable (arr[0] if there is none).
func (g *progGen) plainVar() string {
	if len(g.plain) == 0 {
		return "arr[0]"
	}
	return g.plain[g.r.Intn(len(g.plain))]
}

// body writes up to n statements (fewer when the thread's budget runs
// out).
func (g *progGen) body(n int, ind string) {
	for i := 0; i < n && g.budget > 0; i++ {
		g.stmt(ind)
	}
}

// block writes a nested body of up to n statements, at least one.
func (g *progGen) block(n int, ind string) {
	if g.budget <= 0 {
		g.budget = 1
	}
	g.body(n, ind)
}

// stmt writes one statement and charges the thread's budget with about
// the visible steps it makes.
func (g *progGen) stmt(ind string) {
	r, sb := g.r, &g.sb
	v := g.v
	switch r.Intn(22) {
	case 0, 1:
		fmt.Fprintf(sb, "%sl = %s\n", ind, v())
		g.budget--
	case 2, 3:
		fmt.Fprintf(sb, "%s%s = %d\n", ind, v(), r.Intn(3))
		g.budget--
	case 4:
		fmt.Fprintf(sb, "%s%s = %s + 1\n", ind, v(), v())
		g.budget -= 2
	case 5:
		m := g.free()
		if m < 0 {
			fmt.Fprintf(sb, "%sl = %s\n", ind, v())
			g.budget--
			return
		}
		g.budget -= 2
		g.locked(m, ind, func() { g.block(1+r.Intn(2), ind) })
	case 6:
		fmt.Fprintf(sb, "%sif %s == %d {\n", ind, v(), r.Intn(2))
		g.budget--
		g.block(1, ind+"    ")
		fmt.Fprintf(sb, "%s} else {\n", ind)
		g.block(1, ind+"    ")
		fmt.Fprintf(sb, "%s}\n", ind)
	case 7:
		fmt.Fprintf(sb, "%satomic {\n%s    l = %s\n%s    %s = l + 1\n%s}\n", ind, ind, v(), ind, v(), ind)
		g.budget--
	case 8:
		fmt.Fprintf(sb, "%sassert %s != %d\n", ind, v(), 2+r.Intn(3))
		g.budget--
	case 9:
		fmt.Fprintf(sb, "%sarr[l %% 2] = %d\n", ind, r.Intn(2))
		g.budget--
	case 10:
		fmt.Fprintf(sb, "%sl = arr[%d]\n", ind, r.Intn(2))
		g.budget--
	case 11:
		fmt.Fprintf(sb, "%sfor i in 0..2 {\n%s    %s = %s + i\n%s}\n", ind, ind, v(), v(), ind)
		g.budget -= 4
	case 12:
		// An atomic block whose accesses depend on what it reads
		// (unstable: counts are not compared), so rarer than the rest.
		if r.Intn(3) == 0 {
			fmt.Fprintf(sb, "%satomic {\n%s    if %s == 0 {\n%s        %s = 1\n%s    }\n%s}\n", ind, ind, v(), ind, v(), ind, ind)
		} else {
			fmt.Fprintf(sb, "%satomic {\n%s    %s = %s + 1\n%s}\n", ind, ind, v(), v(), ind)
		}
		g.budget--
	case 13, 14:
		// Two mutexes taken nested, in either order: two threads that
		// take them in opposite orders can deadlock.
		if g.held[0] || g.held[1] {
			fmt.Fprintf(sb, "%s%s = %d\n", ind, v(), r.Intn(3))
			g.budget--
			return
		}
		a := r.Intn(2)
		g.budget -= 4
		g.locked(a, ind, func() {
			g.locked(1-a, ind, func() { g.block(1+r.Intn(2), ind) })
		})
	case 15:
		// A branch on a plain shared read, outside any atomic block: the
		// read may race, and which way it goes depends on the order.
		fmt.Fprintf(sb, "%sif %s > %d {\n", ind, g.plainVar(), r.Intn(2))
		g.budget--
		g.block(1, ind+"    ")
		fmt.Fprintf(sb, "%s}\n", ind)
	case 16, 17:
		// An atomic increment of a variable that other statements access
		// plainly, so atomic and plain accesses mix (and race, unless a
		// mutex orders them); often under a mutex.
		x := g.plainVar()
		incr := func() {
			fmt.Fprintf(sb, "%satomic {\n%s    %s = %s + 1\n%s}\n", ind, ind, x, x, ind)
			g.budget--
		}
		m := g.free()
		if m < 0 || r.Intn(3) == 0 {
			incr()
			return
		}
		g.budget -= 2
		g.locked(m, ind, func() {
			incr()
			if r.Intn(2) == 0 {
				g.block(1, ind)
			}
		})
	case 18, 19:
		// A plain access guarded by a value read without a race (an
		// atomic variable, or under a mutex) that only other threads set
		// to what the guard wants: the access, and the data race it may
		// be in, happen only in the executions where such a write comes
		// first, deep in an exploration that starts with the initial
		// values.
		x := g.plainVar()
		if m := g.free(); m < 0 || len(g.sync) > 0 && r.Intn(2) == 0 {
			fmt.Fprintf(sb, "%sl = %s\n", ind, g.syncVar())
			g.budget--
		} else {
			g.budget -= 3
			g.locked(m, ind, func() { fmt.Fprintf(sb, "%sl = %s\n", ind, v()) })
		}
		if r.Intn(2) == 0 {
			fmt.Fprintf(sb, "%sif l == %d {\n%s    %s = %d\n%s}\n", ind, 1+r.Intn(2), ind, x, r.Intn(3), ind)
		} else {
			fmt.Fprintf(sb, "%sif l > 0 {\n%s    l = %s\n%s}\n", ind, ind, x, ind)
		}
		g.budget--
	case 20:
		// A retry loop that ends: read, then update under a mutex if
		// nobody wrote in between, else read again. Each retry needs a
		// write by another thread, so there are finitely many.
		m := g.free()
		if m < 0 {
			fmt.Fprintf(sb, "%s%s = %s + 1\n", ind, v(), v())
			g.budget -= 2
			return
		}
		x := v()
		fmt.Fprintf(sb, "%sb = false\n%swhile !b {\n%s    l = %s\n", ind, ind, ind, x)
		g.locked(m, ind+"    ", func() {
			fmt.Fprintf(sb, "%s    if %s == l {\n%s        %s = l + 1\n%s        b = true\n%s    }\n", ind, x, ind, x, ind, ind)
		})
		fmt.Fprintf(sb, "%s}\n", ind)
		g.budget -= 5
	case 21:
		// Setting a value others may be guarded on (cases 18, 19).
		if m := g.free(); m < 0 || len(g.sync) > 0 && r.Intn(2) == 0 {
			fmt.Fprintf(sb, "%s%s = %d\n", ind, g.syncVar(), 1+r.Intn(2))
			g.budget--
		} else {
			g.budget -= 3
			g.locked(m, ind, func() { fmt.Fprintf(sb, "%s%s = %d\n", ind, v(), 1+r.Intn(2)) })
		}
	}
}

// syncVar is an atomic shared variable, or any one if there is none.
func (g *progGen) syncVar() string {
	if len(g.sync) == 0 {
		return g.v()
	}
	return g.sync[g.r.Intn(len(g.sync))]
}

// spinProgram: a flag f, a waiter that spins until it is set, a setter
// that makes a few steps first, and maybe a third thread.
func (g *progGen) spinProgram() string {
	r, sb := g.r, &g.sb
	fmt.Fprintf(sb, "// max-steps: %d\n", spinMaxSteps)
	g.declare()
	atomicFlag := r.Intn(2) == 0
	if atomicFlag {
		sb.WriteString("var f atomic int\n")
	} else {
		sb.WriteString("var f int\n")
	}
	// How the setter sets f, and how the waiter waits: a plain or atomic
	// read in a loop, a retry loop taking a mutex, or a loop that does
	// something else while it waits.
	underLock := r.Intn(3) == 0
	wait := r.Intn(4)
	if underLock {
		wait = 3
	}
	sb.WriteString("thread waiter {\n    var l int\n    var b bool\n")
	g.budget = 2
	if r.Intn(2) == 0 {
		g.body(1, "    ")
	}
	switch wait {
	case 0, 1:
		sb.WriteString("    while f == 0 {\n    }\n")
	case 2:
		fmt.Fprintf(sb, "    while f == 0 {\n        l = %s\n    }\n", g.v())
	case 3:
		sb.WriteString("    while true {\n        lock(m0)\n        l = f\n        unlock(m0)\n        if l != 0 {\n            break\n        }\n    }\n")
	}
	// What the setter did before setting f is visible now, unless a race
	// hides it.
	g.budget = 2
	g.body(1+r.Intn(2), "    ")
	fmt.Fprintf(sb, "    assert %s != %d\n", g.v(), 1+r.Intn(2))
	sb.WriteString("    b = l > 100 || b\n    assert l < 1000 || b\n}\n")

	sb.WriteString("thread setter {\n    var l int\n    var b bool\n")
	g.budget = 3
	g.body(2+r.Intn(2), "    ")
	if underLock {
		sb.WriteString("    lock(m0)\n    f = 1\n    unlock(m0)\n")
	} else {
		sb.WriteString("    f = 1\n")
	}
	sb.WriteString("    b = l > 100 || b\n    assert l < 1000 || b\n}\n")
	if r.Intn(2) == 0 {
		sb.WriteString("thread other {\n    var l int\n    var b bool\n")
		g.budget = 2
		g.body(1+r.Intn(2), "    ")
		sb.WriteString("    b = l > 100 || b\n    assert l < 1000 || b\n}\n")
	}
	return sb.String()
}
