package access

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"weft/analysis"
	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/ir"
	"weft/examples"
)

// soundModels are small models beside the examples for the soundness
// test: each feature of the analysis where it could be too precise.
var soundModels = map[string]string{
	"procs spawned in a loop, handles in a local array": `
var a [3]int
var c int
var m mutex
proc w(k int) {
    a[k] = k
    lock(m)
    c += k
    unlock(m)
}
thread main {
    var h [3]tid
    for i in 0..3 {
        h[i] = spawn w(i)
    }
    for i in 0..3 {
        join h[i]
    }
    a[1] = c
}
`,
	"thread array, rows and columns": `
const N = 3
var g [N][N]int
var col [N]int
thread t[i in 0..N] {
    for j in 0..N {
        g[i][j] = j
        col[j] += g[j][i]
    }
    g[(i + 1) % N][0] = 1
}
`,
	"unstable atomic blocks": `
var x [4]int
var f bool
thread t[i in 0..2] {
    atomic {
        if f {
            x[i] = 1
        } else {
            x[i + 2] = 2
        }
        f = !f
    }
}
thread u {
    var k int = x[0]
    atomic {
        x[k % 4] = x[3] + 1
    }
}
`,
	"spawn chains and self-spawning procs": `
var n int
var m mutex
proc leaf() {
    lock(m)
    n++
    unlock(m)
}
proc mid(d int) {
    if d > 0 {
        spawn mid(d - 1)
    }
    var t tid = spawn leaf()
    join t
}
thread root {
    spawn mid(1)
    n = 7
}
`,
	"thread index arithmetic and out-of-range instances": `
var x [3]int
var y int
thread t[i in 0..4] {
    if i < 3 {
        x[i] = i
    }
    y = x[2 - i % 3]
}
`,
	"v2: trylock in ifs, negated, stored, in a loop": `
var c int
var d [2]int
var m mutex
var n [2]mutex
thread t[i in 0..2] {
    if trylock(m) {
        c++
        unlock(m)
    } else {
        d[i] = c
    }
    if !trylock(n[i]) {
        d[0] = 1
    } else {
        d[1] = d[i] + 1
        unlock(n[i])
    }
    var ok bool = trylock(m)
    if ok && c < 3 {
        c = 2
    }
    if ok {
        unlock(m)
    }
    for j in 0..2 {
        if !trylock(m) {
            continue
        }
        c--
        unlock(m)
        break
    }
}
`,
	"v2: wait in a predicate loop, signal and broadcast": `
var m mutex
var cv [2]cond
var ready int
var data int
thread consumer[k in 0..2] {
    lock(m)
    while ready == 0 {
        wait(cv[k], m)
    }
    assert data == 1
    ready--
    unlock(m)
}
thread producer {
    data = 1
    lock(m)
    ready = 2
    signal(cv[0])
    broadcast(cv[1])
    unlock(m)
}
`,
	"v2: wake-ups on one condition variable with different mutexes": `
var m [2]mutex
var cv cond
var n [2]int
thread t[i in 0..2] {
    lock(m[i])
    wait(cv, m[i])
    n[i]++
    unlock(m[i])
}
thread s {
    signal(cv)
    broadcast(cv)
}
`,
	"v2: choose, await": `
var a [4]int
var flag atomic int
thread t {
    var v int = choose 0..4
    a[v] = 1
    a[choose 1..3] = 2
    flag = choose 1..3
}
thread u {
    await flag > 0
    a[flag] = a[0] + 1
}
`,
	"v2: calls with shared accesses and locks": `
var x [3]int
var y int
var m mutex
func get(i int) int {
    return x[i]
}
func put(i int, v int) {
    lock(m)
    x[i] = v
    y = y + 1
    unlock(m)
}
func inc() {
    y++
}
func relock() {
    unlock(m)
    lock(m)
}
func pick(k int) int {
    return (k + 1) % 3
}
thread t[i in 0..2] {
    put(i, get((i + 1) % 3) + 1)
    x[pick(i)] = 2
    lock(m)
    inc()
    relock()
    inc()
    unlock(m)
}
thread u {
    var s int = get(0) + get(2)
    y = s
    atomic {
        x[1] = get(2) + 1
    }
}
`,
	"v2: functions that wait and unlock, called holding the mutex": `
var m mutex
var cv cond
var ready int
var v int
func waitReady() {
    while ready == 0 {
        wait(cv, m)
    }
}
func release() {
    unlock(m)
}
thread a {
    lock(m)
    waitReady()
    v = 1
    release()
    v = 2
}
thread b {
    lock(m)
    ready = 1
    v = 3
    signal(cv)
    unlock(m)
}
`,
	"v2: a proc spawned by a function called twice": `
var x int
proc w() {
    x++
}
func two() {
    spawn w()
}
thread main {
    two()
    two()
}
`,
	"v2: recursion": `
var n int
var a [4]int
var z int
func f(k int) int {
    if k <= 0 {
        return n
    }
    a[k % 4] = k
    return f(k - 1) + 1
}
func even(k int) bool {
    if k == 0 {
        return true
    }
    a[0] = k
    return odd(k - 1)
}
func odd(k int) bool {
    if k == 0 {
        return false
    }
    z = k
    return even(k - 1)
}
thread t {
    n = f(3)
    z = 5
}
thread u {
    a[2] = f(1)
    n++
    if even(2 + n % 1) {
        a[1] = 1
    }
}
`,
	"v2: functions that spawn, join, wait and signal": `
var m mutex
var cv cond
var count int
var out [2]int
func arrive(k int) {
    lock(m)
    count++
    if count == 2 {
        broadcast(cv)
    }
    while count < 2 {
        wait(cv, m)
    }
    out[k] = count
    unlock(m)
}
proc w() {
    arrive(1)
}
func start() tid {
    var h tid = spawn w()
    return h
}
func finish(h tid) {
    join h
}
thread main {
    var h tid = start()
    arrive(0)
    finish(h)
    assert out[1] == 2
}
`,
	"joins of declared threads by computed handles": `
var d [2]int
thread w[i in 0..2] {
    d[i] = i + 1
}
thread main {
    for k in 0..2 {
        join w[k]
        assert d[k] == k + 1
    }
}
`,
}

// TestSoundAgainstEngine checks the summary against every execution DFS
// explores (see checkSound).
func TestSoundAgainstEngine(t *testing.T) {
	models := map[string]string{}
	for name, src := range soundModels {
		models[name] = src
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.weft"))
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if examples.LoopsForever(src) {
			// Every DFS execution runs to the step bound (100,000
			// steps): too long for 20,000 of them.
			continue
		}
		models[filepath.Base(f)] = string(src)
	}
	// The first 20,000 DFS executions of each; 5,000 with -short, the
	// race detector's run (75 s at 20,000).
	maxExecutions := int64(20_000)
	if testing.Short() {
		maxExecutions = 5_000
	}
	for name, src := range models {
		t.Run(name, func(t *testing.T) {
			ld := lower.Load(name, []byte(src))
			if ld.Exec == nil {
				t.Fatal(ld.Diagnostics)
			}
			s, err := Analyze(context.Background(), ld.Program, ld.Exec)
			if err != nil {
				t.Fatal(err)
			}
			checkSound(t, ld.Program, ld.Exec, s, maxExecutions)
		})
	}
}

// checkSound checks that the summary over-approximates what the engine
// does, in every execution DFS explores (up to maxExecutions):
//   - every two steps of different threads that ir.Dependent says are
//     dependent (steps that stop the execution aside) come from
//     statements that Interference reports for each other, naming the
//     other step's thread; every join is paired with the joined thread's
//     end;
//   - every word a step accesses is in its Loc for the step's thread;
//     every thread a join waits for is among its Joins;
//   - every lock the lockset pass says is held at an access is held;
//   - a step of a function's code counts as a step of each call
//     statement that may reach the function too: those are checked as
//     the step's own statement is (pairs, joins).
func checkSound(t *testing.T, checked *analysis.Program, prog *ir.Program, s *Summary, maxExecutions int64) {
	t.Helper()
	bodyIndex := make(map[*ir.Body]int)
	for i, b := range prog.Bodies {
		bodyIndex[b] = i
	}
	pairs := make(map[*Statement][]Pair)
	interference := func(st *Statement) []Pair {
		if p, ok := pairs[st]; ok {
			return p
		}
		p := s.Interference(st)
		pairs[st] = p
		return p
	}
	// who names a thread of an execution as Pair.Threads does.
	type who struct {
		owner *analysis.Object
		inst  *analysis.ThreadInstance
		tid   int32 // tells apart the spawned threads of one proc
	}
	reports := func(st, other *Statement, w who) bool {
		for _, p := range interference(st) {
			if p.Other != other || p.Threads.Owner != w.owner {
				continue
			}
			if w.inst == nil {
				return true
			}
			for _, in := range p.Threads.Instances {
				if in == w.inst {
					return true
				}
			}
		}
		return false
	}
	type step struct {
		st    *Statement
		calls []*Statement // the call statements that stand for it
		w     who
		fp    ir.Footprint
	}
	// callers lists, by body and function index, the call statements
	// that may run the function (those that run).
	callers := make(map[*body][][]*Statement)
	callsOf := func(b *body, pc int32) []*Statement {
		r := b.regionAt(pc)
		if r.fn < 0 {
			return nil
		}
		list, ok := callers[b]
		if !ok {
			list = make([][]*Statement, len(b.funcs))
			for _, st := range b.stmts {
				for i := range st.Steps {
					sp := &st.Steps[i]
					c := b.code.Code[sp.PC].C
					if sp.Kind != Call || !b.reached[sp.PC] || c < 0 || int(c) >= len(b.funcs) {
						continue
					}
					for _, g := range b.reach[c] {
						if n := len(list[g]); n == 0 || list[g][n-1] != st {
							list[g] = append(list[g], st)
						}
					}
				}
			}
			callers[b] = list
		}
		return list[r.fn]
	}
	type pairKey struct {
		a, b   *Statement
		aw, bw who
	}
	checked2 := make(map[pairKey]bool)
	failures := 0
	fail := func(format string, args ...any) {
		if failures++; failures <= 10 {
			t.Errorf(format, args...)
		}
	}
	var steps []step
	held := make(map[int32]map[int32]bool) // the mutexes each thread holds
	byWord := make(map[int32][]int)
	opts := engine.Options{Algorithm: engine.DFS, MaxExecutions: maxExecutions, OnExecution: func(events []engine.Event, m *engine.Machine) {
		steps = steps[:0]
		clear(held)
		threadWho := func(tid int32) (who, int) {
			th := m.Threads[tid]
			if int(tid) < len(checked.Threads) {
				inst := checked.Threads[tid]
				return who{inst.Object, inst, tid}, bodyIndex[th.Body]
			}
			return who{owner: checked.Procs[th.Proc], tid: tid}, bodyIndex[th.Body]
		}
		for i := range events {
			ev := &events[i]
			if ev.Stop != engine.NoStop || ev.Kind == ir.EvStop {
				continue
			}
			w, bi := threadWho(ev.Thread)
			st, sp := s.StepAt(bi, int(ev.PC))
			if st == nil {
				fail("no step at %s pc %d (%v)", prog.Bodies[bi].Name, ev.PC, ev.Kind)
				continue
			}
			if want := stepKindOf(ev.Kind); sp.Kind != want {
				fail("%s: step kind %v, the engine's %v", st, sp.Kind, want)
			}
			b := s.bodies[bi]
			row := 0
			if w.inst != nil && b.rows > 1 {
				row = int(w.inst.Index - w.inst.Object.Lo)
			}
			// The words it accessed are in its Locs.
			in := func(locs []Loc, loc int32) bool {
				for i := range locs {
					if sp := locs[i].rowSpan(row); sp.lo <= loc && loc < sp.hi {
						return true
					}
				}
				return false
			}
			switch ev.Kind {
			case ir.EvRead:
				if !in(sp.Reads, ev.Loc) {
					fail("%s: %s reads %s, not in its reads", st, m.Threads[ev.Thread].Name, prog.Locations[ev.Loc].Name)
				}
			case ir.EvWrite:
				if !in(sp.Writes, ev.Loc) {
					fail("%s: %s writes %s, not in its writes", st, m.Threads[ev.Thread].Name, prog.Locations[ev.Loc].Name)
				}
			case ir.EvLock, ir.EvUnlock, ir.EvTrylock:
				if !in([]Loc{sp.Mutex}, ev.Loc) {
					fail("%s: %s locks %s, not its mutex", st, m.Threads[ev.Thread].Name, prog.Locations[ev.Loc].Name)
				}
			case ir.EvSignal, ir.EvBroadcast:
				if !in([]Loc{sp.Cond}, ev.Loc) {
					fail("%s: %s signals %s, not its condition variable", st, m.Threads[ev.Thread].Name, prog.Locations[ev.Loc].Name)
				}
			case ir.EvWait, ir.EvWake:
				for _, a := range ev.Acc {
					want := sp.Mutex
					if !prog.Locations[a.Loc].Mutex {
						want = sp.Cond
					}
					if !in([]Loc{want}, a.Loc) {
						fail("%s: %s uses %s, not its mutex or condition variable", st, m.Threads[ev.Thread].Name, prog.Locations[a.Loc].Name)
					}
				}
			case ir.EvAtomic:
				for _, a := range ev.Acc {
					if a.Write && !in(sp.Writes, a.Loc) || !a.Write && !in(sp.Reads, a.Loc) {
						fail("%s: %s accesses %s, not in its accesses", st, m.Threads[ev.Thread].Name, prog.Locations[a.Loc].Name)
					}
				}
			case ir.EvJoin:
				if tw, _ := threadWho(ev.Loc); !sp.JoinsAny && !joinsWho(sp, tw.owner, tw.inst) {
					fail("%s: joins %s, not among its joins", st, m.Threads[ev.Loc].Name)
				}
			}
			// The locks it is said to hold are held.
			if ev.Kind != ir.EvSpawn && ev.Kind != ir.EvJoin {
				for _, word := range heldWords(b, int32(ev.PC), row, nil) {
					if !held[ev.Thread][word] {
						fail("%s: %s does not hold %s", st, m.Threads[ev.Thread].Name, prog.Locations[word].Name)
					}
				}
			}
			lock := func(loc int32) {
				if held[ev.Thread] == nil {
					held[ev.Thread] = make(map[int32]bool)
				}
				held[ev.Thread][loc] = true
			}
			switch ev.Kind {
			case ir.EvLock:
				lock(ev.Loc)
			case ir.EvTrylock:
				if ev.Value == 1 {
					lock(ev.Loc)
				}
			case ir.EvUnlock:
				delete(held[ev.Thread], ev.Loc)
			case ir.EvWait, ir.EvWake:
				for _, a := range ev.Acc {
					if !prog.Locations[a.Loc].Mutex {
						continue
					}
					if ev.Kind == ir.EvWait {
						delete(held[ev.Thread], a.Loc)
					} else {
						lock(a.Loc)
					}
				}
			}
			fp := ir.Footprint{Kind: ev.Kind, Loc: ev.Loc}
			switch ev.Kind {
			case ir.EvAtomic:
				fp.Acc = append([]ir.Access(nil), ev.Acc...)
				if a := prog.Bodies[bi].Atomics[ev.PC]; a != nil && !a.Stable {
					fp.Acc = append(fp.Acc, a.Accesses()...)
				}
			case ir.EvWait, ir.EvWake:
				fp.Acc = append([]ir.Access(nil), ev.Acc...)
			}
			calls := callsOf(b, ev.PC)
			steps = append(steps, step{st, calls, w, fp})
			if ev.Kind == ir.EvJoin && ev.Loc >= 0 && int(ev.Loc) < len(m.Threads) {
				tw, tb := threadWho(ev.Loc)
				end := s.bodies[tb].end
				for _, x := range append([]*Statement{st}, calls...) {
					key := pairKey{x, end, w, tw}
					if !checked2[key] {
						checked2[key] = true
						if !reports(x, end, tw) {
							fail("%s: join of %v, but no pair with %s", x, tw.owner.Name, end)
						}
					}
				}
			}
		}
		// Dependent steps share a word: look at the steps of each word.
		clear(byWord)
		for i := range steps {
			steps[i].fp.Touches(func(loc int32, _ bool) bool {
				if l := byWord[loc]; len(l) == 0 || l[len(l)-1] != i {
					byWord[loc] = append(l, i)
				}
				return false
			})
		}
		for _, list := range byWord {
			for x, i := range list {
				for _, j := range list[x+1:] {
					a, b := &steps[i], &steps[j]
					if a.w == b.w || !ir.Dependent(&a.fp, &b.fp) {
						continue
					}
					for _, x := range append([]*Statement{a.st}, a.calls...) {
						for _, y := range append([]*Statement{b.st}, b.calls...) {
							key := pairKey{x, y, a.w, b.w}
							if checked2[key] {
								continue
							}
							checked2[key] = true
							if !reports(x, y, b.w) {
								fail("%s and %s are dependent, but Interference of the first has no %s there", x, y, b.w.owner.Name)
							}
							if !reports(y, x, a.w) {
								fail("%s and %s are dependent, but Interference of the first has no %s there", y, x, a.w.owner.Name)
							}
						}
					}
				}
			}
		}
	}}
	res, err := engine.Explore(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(checked2) == 0 {
		t.Errorf("no dependent pair observed in %d executions", res.Stats.Executions)
	}
	// Spurious wake-ups write the condition variable at the wake-up: the
	// summary must cover those executions too. A predicate loop may then
	// wake up and wait forever: short executions are enough.
	if usesCond(prog) {
		opts.SpuriousWakeups = true
		opts.MaxSteps = 60
		opts.MaxExecutions = min(maxExecutions, 3000)
		crash, err := explore(prog, opts)
		switch {
		case crash != nil:
			t.Fatalf("the engine panicked: %v", crash)
		case err != nil:
			t.Fatal(err)
		}
	}
}

// explore runs engine.Explore, turning a panic into a value.
func explore(prog *ir.Program, opts engine.Options) (crash any, err error) {
	defer func() { crash = recover() }()
	_, err = engine.Explore(context.Background(), prog, opts)
	return nil, err
}

// usesCond reports whether some body of prog waits on a condition
// variable.
func usesCond(prog *ir.Program) bool {
	for _, b := range prog.Bodies {
		for _, in := range b.Code {
			if in.Op == ir.OpWait {
				return true
			}
		}
	}
	return false
}

func joinsWho(step *Step, owner *analysis.Object, inst *analysis.ThreadInstance) bool {
	for _, ts := range step.Joins {
		if ts.Owner != owner {
			continue
		}
		if inst == nil {
			return true
		}
		for _, in := range ts.Instances {
			if in == inst {
				return true
			}
		}
	}
	return false
}

func stepKindOf(k ir.EventKind) StepKind {
	switch k {
	case ir.EvRead:
		return Read
	case ir.EvWrite:
		return Write
	case ir.EvLock:
		return Lock
	case ir.EvUnlock:
		return Unlock
	case ir.EvSpawn:
		return Spawn
	case ir.EvJoin:
		return Join
	case ir.EvChoose:
		return Choose
	case ir.EvTrylock:
		return Trylock
	case ir.EvWait:
		return Wait
	case ir.EvWake:
		return Wake
	case ir.EvSignal:
		return Signal
	case ir.EvBroadcast:
		return Broadcast
	}
	return Atomic
}
