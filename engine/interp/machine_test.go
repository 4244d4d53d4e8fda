package interp_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/engine/interp"
	"weft/engine/ir"
)

// snapshot is everything of a machine's state that a step may change.
func snapshot(m *interp.Machine) string {
	s := fmt.Sprint(m.Mem, m.StepCount(), m.Depth(), len(m.Threads))
	for _, th := range m.Threads {
		s += fmt.Sprint("|", th.Name, th.PC, th.Status, th.Steps, th.BaseFrame())
		for _, c := range th.Calls() {
			s += fmt.Sprint(" ", c.Func.Name, c.Site, c.Frame)
		}
	}
	return s
}

func load(t testing.TB, name string, src []byte) *ir.Program {
	t.Helper()
	ld := lower.Load(name, src)
	if ld.Exec == nil {
		t.Fatalf("%s: %v", name, ld.Diagnostics)
	}
	return ld.Exec
}

// undoPrograms are models for TestUndoRestores beside the examples: what
// the frame undo log must get right (local arrays written by index, long
// local loops that the memo short-cuts, spawns, atomic blocks that write
// a location many times).
var undoPrograms = map[string]string{
	"arrays": `
var x atomic int
var y int

thread t[k in 0..2] {
    var a [300]int
    var s int
    for j in 0..4 {
        for i in 0..300 {
            a[(i * 7 + j) % 300] = a[i] + i + x
        }
        s = s + a[j * 13]
        x = s % 17
        y = a[k]
    }
}
`,
	"memo": `
var x atomic int

thread t[k in 0..3] {
    for j in 0..3 {
        var s int = x % 2
        for i in 0..600 {
            s = (s * 3 + i) % 1000003
        }
        x = s + k
    }
}
`,
	"spawns": `
var total atomic int

proc worker(id int) {
    var b [50]int
    for i in 0..50 {
        b[i] = id * i
    }
    total = total + b[49]
}

thread main {
    var pool [3]tid
    for i in 0..3 {
        pool[i] = spawn worker(i)
    }
    for i in 0..3 {
        join pool[i]
    }
}

thread other {
    total = total + 1
}
`,
	"atomic loop": `
var c [4]int
var done atomic bool

thread a {
    atomic {
        for i in 0..200 {
            c[i % 4] = c[i % 4] + 1
        }
    }
    done = true
}

thread b {
    atomic {
        c[0] = c[1] + c[2]
    }
    if done {
        c[3] = 0
    }
}
`,
}

// TestUndoRestores walks random schedules of the example models and of
// undoPrograms, coarse and fine, and checks that undoing each step gives
// back exactly the state before it (backtracking relies on it).
func TestUndoRestores(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.weft")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	progs := map[string]*ir.Program{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs[f] = load(t, f, src)
	}
	for name, src := range undoPrograms {
		progs[name] = load(t, name, []byte(src))
	}
	for name, prog := range progs {
		for seed := int64(0); seed < 20; seed++ {
			r := rand.New(rand.NewSource(seed))
			m := interp.NewMachine(prog, 0)
			m.Coarse = seed%2 == 1
			var before []string
			var ev interp.Event
			for step := 0; step < 200; step++ {
				var enabled []int
				for i := range m.Threads {
					if m.Enabled(i) {
						enabled = append(enabled, i)
					}
				}
				if len(enabled) == 0 {
					break
				}
				before = append(before, snapshot(m))
				if !m.Step(enabled[r.Intn(len(enabled))], &ev) {
					m.Undo()
					if got := snapshot(m); got != before[len(before)-1] {
						t.Fatalf("%s seed %d: undoing a stop changed the state", name, seed)
					}
					before = before[:len(before)-1]
					break
				}
				if r.Intn(4) == 0 {
					// Undo and redo now and then, so that later steps run
					// after undone ones (and hit the memo).
					m.Undo()
					if got, want := snapshot(m), before[len(before)-1]; got != want {
						t.Fatalf("%s seed %d: undoing step %d:\n got %s\nwant %s", name, seed, len(before), got, want)
					}
					before = before[:len(before)-1]
				}
			}
			for len(before) > 0 {
				m.Undo()
				if got, want := snapshot(m), before[len(before)-1]; got != want {
					t.Fatalf("%s seed %d: after undoing step %d:\n got %s\nwant %s", name, seed, len(before), got, want)
				}
				before = slices.Delete(before, len(before)-1, len(before))
			}
		}
	}
}

// allocatedBy returns the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// runThread steps thread 0 of m until it finishes and returns the steps.
func runThread(t *testing.T, m *interp.Machine) int {
	var ev interp.Event
	n := 0
	for m.Threads[0].Status != interp.Finished {
		if !m.Step(0, &ev) {
			t.Fatalf("step %d stopped: %s", n, ev.Message)
		}
		n++
	}
	return n
}

// TestStepMemoryIsNotFrameSized checks that a step's undo record does not
// grow with the frame: a frame holds every constant of the code and every
// element of the local arrays, and saving it whole on every step made a
// 10,000-line thread take gigabytes (issue 14).
func TestStepMemoryIsNotFrameSized(t *testing.T) {
	var consts strings.Builder
	consts.WriteString("var x int\nthread t {\n")
	for i := range 5000 {
		fmt.Fprintf(&consts, "    x = %d\n", i)
	}
	consts.WriteString("}\n")
	tests := []struct {
		name, src string
		steps     int
		maxBytes  uint64 // allocated by all the steps
	}{
		// 5,000 steps with a frame of 5,000 constants: 200 MB when the
		// frame was saved on every step.
		{"distinct constants", consts.String(), 5000, 4 << 20},
		// 200 steps with a frame of 100,000 words: 160 MB when saved whole.
		{"local array", `
var x int
thread t {
    var a [100000]int
    for i in 0..200 {
        a[i] = i
        x = a[i]
    }
}
`, 200, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := interp.NewMachine(load(t, tt.name, []byte(tt.src)), 0)
			steps := 0
			got := allocatedBy(func() { steps = runThread(t, m) })
			if steps != tt.steps {
				t.Fatalf("%d steps, want %d", steps, tt.steps)
			}
			if got > tt.maxBytes {
				t.Errorf("%d steps allocated %d bytes, want at most %d", steps, got, tt.maxBytes)
			}
			if b := m.Bytes(); b > int64(tt.maxBytes)+8*int64(len(m.Threads[0].Frame)*2) {
				t.Errorf("the machine holds %d bytes after %d steps", b, steps)
			}
			m.UndoTo(0)
			if m.Threads[0].Frame[0] != 0 || m.Mem[0] != 0 {
				t.Errorf("undoing every step did not restore the initial state")
			}
		})
	}
}

// TestMemoryBudget checks that a machine with a memory budget refuses
// what would take it past the budget, as a StopMemory step that Undo
// takes back, and that a machine within its budget is unaffected.
func TestMemoryBudget(t *testing.T) {
	const budget = 4 << 20
	tests := []struct {
		name, src string
		initial   bool // the initial state alone does not fit
		stop      bool // some step stops with StopMemory
	}{
		{"declared threads' frames", `
thread t[k in 0..10] {
    var a [100000]int
    a[k] = k
}
`, true, false},
		{"spawned frames", `
var x int
proc worker(id int) {
    var a [100000]int
    a[id] = id
    x = a[id]
}
thread main {
    for i in 0..10 {
        spawn worker(i)
    }
}
`, false, true},
		{"undo log", `
var x int
thread t {
    var a [100000]int
    for j in 0..20 {
        for i in 0..100000 {
            a[i] = j
        }
        x = j
    }
}
`, false, true},
		{"within the budget", `
var x int
thread t {
    var a [1000]int
    for j in 0..20 {
        for i in 0..1000 {
            a[i] = j
        }
        x = j
    }
}
`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := load(t, tt.name, []byte(tt.src))
			m, err := interp.NewBoundedMachine(prog, 0, budget)
			if tt.initial {
				if !errors.Is(err, interp.ErrMemoryBudget) {
					t.Fatalf("got error %v, want ErrMemoryBudget", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ev interp.Event
			for m.Threads[0].Status != interp.Finished {
				before := snapshot(m)
				if m.Step(0, &ev) {
					continue
				}
				if ev.Stop != interp.StopMemory {
					t.Fatalf("stopped with %v: %s", ev.Stop, ev.Message)
				}
				if !tt.stop {
					t.Fatalf("a step within the budget stopped: %s", ev.Message)
				}
				if m.Bytes() > 3*budget {
					t.Errorf("the machine holds %d bytes, far past its budget of %d", m.Bytes(), budget)
				}
				m.Undo()
				if snapshot(m) != before {
					t.Fatalf("undoing the memory stop changed the state")
				}
				return
			}
			if tt.stop {
				t.Errorf("ran to the end holding %d bytes, want a StopMemory step", m.Bytes())
			}
		})
	}
}
