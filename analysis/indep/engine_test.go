package indep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"weft/analysis/access"
	"weft/analysis/lower"
	"weft/engine"
	"weft/engine/interp"
	"weft/engine/ir"
	"weft/examples"
)

// engineModels exercise W (spawns, functions, loops, atomic blocks,
// locks and condition variables) and the engine's table (atomic blocks of
// one assignment against plain reads and writes, thread arrays,
// functions).
var engineModels = map[string]string{
	"spawn chain": `
var x int
var y int
var z [3]int
var m mutex
proc leaf(k int) {
    lock(m)
    z[k] = k
    unlock(m)
}
proc mid() {
    spawn leaf(1)
    y = 2
}
thread root {
    x = 1
    spawn mid()
    var t tid = spawn leaf(2)
    join t
}
thread other {
    var r int = y
    z[0] = r
}
`,
	"functions and loops": `
var a [4]int
var s int
var m mutex
func put(i int, v int) {
    lock(m)
    a[i] = v
    unlock(m)
}
func get(i int) int {
    return a[i]
}
thread t[i in 0..2] {
    for j in 0..2 {
        put(i + j, j)
    }
    s = get(i)
    atomic {
        s = i
    }
}
thread u {
    var k int = 1
    while k < 3 {
        atomic {
            a[k] = k
        }
        k++
    }
    var r int = a[1]
    atomic {
        s = r
    }
}
`,
	"atomic writes and plain accesses": `
var x int
var a [3]int
var b bool
thread t[i in 0..3] {
    var v int = i % 2
    atomic {
        x = v
    }
    atomic {
        a[i] = 1
    }
    var r int = x
    atomic {
        b = true
    }
    x = 1
    atomic {
        x += 1
    }
}
thread u {
    var k int = 2
    atomic {
        a[k] = 1
    }
    x = 0
    var w int = a[1]
    if b {
        atomic {
            x = w
        }
    }
}
`,
	"condition variables": `
var m mutex
var cv cond
var ready int
thread a {
    lock(m)
    while ready == 0 {
        wait(cv, m)
    }
    unlock(m)
}
thread b {
    lock(m)
    ready = 1
    signal(cv)
    unlock(m)
}
`,
}

type testModel struct{ name, src string }

func testModels(t *testing.T) []testModel {
	var out []testModel
	for name, src := range engineModels {
		out = append(out, testModel{name, src})
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
		out = append(out, testModel{filepath.Base(f), string(src)})
	}
	slices.SortFunc(out, func(a, b testModel) int {
		if a.name < b.name {
			return -1
		}
		if a.name > b.name {
			return 1
		}
		return 0
	})
	return out
}

func loadAll(t *testing.T, src string) (*Result, *ir.Program) {
	t.Helper()
	ld := lower.Load("model.weft", []byte(src))
	if ld.Exec == nil {
		t.Fatalf("does not load: %v", ld.Diagnostics)
	}
	sum, err := access.Analyze(context.Background(), ld.Program, ld.Exec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Analyze(context.Background(), ld.Program, ld.Exec, sum, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, ld.Exec
}

// TestWritesSound checks W against every execution DFS explores: every
// word a thread, or a thread it spawned later (transitively), writes
// after it stood at site s is in Writes[s] (when s is in the map).
func TestWritesSound(t *testing.T) {
	for _, md := range testModels(t) {
		t.Run(md.name, func(t *testing.T) {
			if examples.LoopsForever([]byte(md.src)) {
				t.Skip("loops forever: every DFS execution runs to the step bound, too long for 3,000 of them")
			}
			if checkWrites(t, md.src, 3000) == 0 {
				t.Skip("no write checked")
			}
		})
	}
}

// checkWrites runs the check of TestWritesSound on src, over at most
// maxExecutions executions of DFS, and returns how many writes it checked.
func checkWrites(t *testing.T, src string, maxExecutions int64) int {
	t.Helper()
	r, prog := loadAll(t, src)
	cons := r.Constraints()
	bodyIndex := map[*ir.Body]int{}
	for i, b := range prog.Bodies {
		bodyIndex[b] = i
	}
	in := func(rs []ir.LocRange, loc int32) bool {
		for _, x := range rs {
			if x.Lo <= loc && loc < x.Hi {
				return true
			}
		}
		return false
	}
	failures, checked := 0, 0
	opts := engine.Options{Algorithm: engine.DFS, MaxExecutions: maxExecutions, OnExecution: func(events []engine.Event, m *engine.Machine) {
		// spawnedAt[c] is the index of the event that spawned c.
		spawnedAt := map[int32]int{}
		for i := range events {
			if events[i].Kind == ir.EvSpawn && events[i].Stop == engine.NoStop {
				spawnedAt[events[i].Loc] = i
			}
		}
		// after says whether thread x is t, or descends from a
		// thread t spawned at or after event i.
		after := func(x, t int32, i int) bool {
			for {
				if x == t {
					return true
				}
				if int(x) >= len(m.Threads) || x < 0 {
					return false
				}
				p := m.Threads[x].Parent
				if p < 0 {
					return false
				}
				if p == t {
					at, ok := spawnedAt[x]
					return ok && at >= i
				}
				x = p
			}
		}
		for i := range events {
			ev := &events[i]
			if ev.Stop != engine.NoStop || ev.Kind == ir.EvStop {
				continue
			}
			bi := bodyIndex[m.Threads[ev.Thread].Body]
			site := ir.Site{Body: int32(bi), PC: ev.PC}
			w, ok := cons.Writes[site]
			if !ok {
				continue
			}
			for j := i; j < len(events); j++ {
				e := &events[j]
				if e.Stop != engine.NoStop || !after(e.Thread, ev.Thread, i) {
					continue
				}
				for _, loc := range written(e) {
					checked++
					if !in(w, loc) {
						if failures++; failures <= 5 {
							t.Errorf("%s pc %d: W %v misses %s, written by %s at pc %d", prog.Bodies[bi].Name, ev.PC, w, prog.Locations[loc].Name, m.Threads[e.Thread].Name, e.PC)
						}
					}
				}
			}
		}
	}}
	if _, err := engine.Explore(context.Background(), prog, opts); err != nil {
		t.Fatal(err)
	}
	return checked
}

// written lists the words an event writes (mutexes and condition
// variables included).
func written(e *engine.Event) []int32 {
	switch e.Kind {
	case ir.EvWrite, ir.EvLock, ir.EvUnlock, ir.EvTrylock, ir.EvSignal, ir.EvBroadcast:
		return []int32{e.Loc}
	case ir.EvAtomic, ir.EvWait, ir.EvWake:
		var out []int32
		for _, a := range e.Acc {
			if a.Write || e.Kind != ir.EvAtomic {
				out = append(out, a.Loc)
			}
		}
		if e.Kind == ir.EvWake {
			out = append(out, e.Loc)
		}
		return out
	}
	return nil
}

// TestTableCommutes explores the states of each model (DFS over the
// machine, bounded) and, wherever two threads stand at the sites of a
// constraint of the table and it holds, runs their steps in both orders
// and checks that they reach the same state.
func TestTableCommutes(t *testing.T) {
	held := 0
	for _, md := range testModels(t) {
		t.Run(md.name, func(t *testing.T) {
			held += checkTable(t, md.src, 20000)
		})
	}
	if held == 0 {
		t.Error("no constraint of any model held in any state")
	}
}

// checkTable runs the check of TestTableCommutes on src, over at most
// maxStates states, and returns how often a constraint held.
func checkTable(t *testing.T, src string, maxStates int) (held int) {
	t.Helper()
	r, prog := loadAll(t, src)
	cons := r.Constraints()
	if len(cons.Pairs) == 0 {
		return 0
	}
	bodyIndex := map[*ir.Body]int{}
	for i, b := range prog.Bodies {
		bodyIndex[b] = i
	}
	m := interp.NewMachine(prog, 0)
	states := 0
	var ev interp.Event
	var dfs func(depth int)
	dfs = func(depth int) {
		if states++; states > maxStates || depth > 60 {
			return
		}
		n := len(m.Threads)
		ready := func(x int) bool {
			return m.Threads[x].Status == interp.Ready && m.Enabled(x)
		}
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if a == b || !ready(a) || !ready(b) {
					continue
				}
				ta, tb := m.Threads[a], m.Threads[b]
				key := [2]ir.Site{{Body: int32(bodyIndex[ta.Body]), PC: ta.PC}, {Body: int32(bodyIndex[tb.Body]), PC: tb.PC}}
				for _, c := range cons.Pairs[key] {
					if !c.Holds(liveState{m.Mem, [2][]int64{ta.Frame, tb.Frame}}) {
						continue
					}
					held++
					s1, ok1 := both(m, a, b)
					s2, ok2 := both(m, b, a)
					if ok1 != ok2 || ok1 && s1 != s2 {
						t.Errorf("%s and %s do not commute although %s [%s] holds:\n%s\n%s", ta.Name, tb.Name, c.Text, c.Origin, s1, s2)
					}
				}
			}
		}
		for x := 0; x < n; x++ {
			if !ready(x) {
				continue
			}
			ok := m.Step(x, &ev)
			if ok {
				dfs(depth + 1)
			}
			m.Undo()
		}
	}
	dfs(0)
	return held
}

// both runs a then b, returns the state reached, and undoes them.
func both(m *interp.Machine, a, b int) (string, bool) {
	var ev interp.Event
	ok := m.Step(a, &ev)
	n := 1
	if ok && m.Threads[b].Status == interp.Ready && m.Enabled(b) {
		ok = m.Step(b, &ev)
		n++
	} else {
		ok = false
	}
	s := fmt.Sprint(m.Mem)
	for _, th := range m.Threads {
		s += fmt.Sprintf(" %s@%d %v %v", th.Name, th.PC, th.Status, th.Frame)
	}
	for range n {
		m.Undo()
	}
	return s, ok
}

// liveState is the state of a machine for ir.CExpr: its memory and the
// frames of the two sides.
type liveState struct {
	mem    []int64
	frames [2][]int64
}

func (s liveState) Shared(loc int32) (int64, bool) {
	if loc < 0 || int(loc) >= len(s.mem) {
		return 0, false
	}
	return s.mem[loc], true
}

func (s liveState) Local(side uint8, slot int32) (int64, bool) {
	if side > 1 || slot < 0 || int(slot) >= len(s.frames[side]) {
		return 0, false
	}
	return s.frames[side][slot], true
}
