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
		models[filepath.Base(f)] = string(src)
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
			checkSound(t, ld.Program, ld.Exec, s, 20000)
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
//   - every lock the lockset pass says is held at an access is held.
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
		st *Statement
		w  who
		fp ir.Footprint
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
				return who{inst.Object, inst}, bodyIndex[th.Body]
			}
			return who{owner: checked.Procs[th.Proc]}, bodyIndex[th.Body]
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
			case ir.EvLock, ir.EvUnlock:
				if !in([]Loc{sp.Mutex}, ev.Loc) {
					fail("%s: %s locks %s, not its mutex", st, m.Threads[ev.Thread].Name, prog.Locations[ev.Loc].Name)
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
			switch ev.Kind {
			case ir.EvLock:
				if held[ev.Thread] == nil {
					held[ev.Thread] = make(map[int32]bool)
				}
				held[ev.Thread][ev.Loc] = true
			case ir.EvUnlock:
				delete(held[ev.Thread], ev.Loc)
			}
			fp := ir.Footprint{Kind: ev.Kind, Loc: ev.Loc}
			if ev.Kind == ir.EvAtomic {
				fp.Acc = append([]ir.Access(nil), ev.Acc...)
				if a := prog.Bodies[bi].Atomics[ev.PC]; a != nil && !a.Stable {
					fp.Acc = append(fp.Acc, a.Accesses()...)
				}
			}
			steps = append(steps, step{st, w, fp})
			if ev.Kind == ir.EvJoin && ev.Loc >= 0 && int(ev.Loc) < len(m.Threads) {
				tw, tb := threadWho(ev.Loc)
				end := s.bodies[tb].end
				key := pairKey{st, end, w, tw}
				if !checked2[key] {
					checked2[key] = true
					if !reports(st, end, tw) {
						fail("%s: join of %v, but no pair with %s", st, tw.owner.Name, end)
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
					key := pairKey{a.st, b.st, a.w, b.w}
					if checked2[key] {
						continue
					}
					checked2[key] = true
					if !reports(a.st, b.st, b.w) {
						fail("%s and %s are dependent, but Interference of the first has no %s there", a.st, b.st, b.w.owner.Name)
					}
					if !reports(b.st, a.st, a.w) {
						fail("%s and %s are dependent, but Interference of the first has no %s there", b.st, a.st, a.w.owner.Name)
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
	}
	return Atomic
}
