package interp

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"weft/analysis/lower"
	"weft/engine/ir"
)

// loadSrc lowers a Weft model for the fingerprint's tests.
func loadSrc(t testing.TB, name, src string) *ir.Program {
	t.Helper()
	ld := lower.Load(name, []byte(src))
	if ld.Exec == nil {
		t.Fatalf("%s: %v", name, ld.Diagnostics)
	}
	return ld.Exec
}

// genModel writes a random Weft model that exercises every part of the
// state the fingerprint hashes: shared words and arrays, mutexes (lock,
// trylock), a condition variable (wait, signal, broadcast), spin loops
// and awaits (spin records and their reads; test-and-set and trylock
// loops and write-backs, whose failed attempts change nothing), local
// variables and local arrays (live and dead slots), recursive functions
// (frames at several depths), spawned procs and joins, choose
// (alternatives) and atomic blocks. It may have bugs, runtime errors and deadlocks: the walks only
// need states.
func genModel(r *rand.Rand) string {
	g := &gen{r: r}
	var sb strings.Builder
	sb.WriteString(`var x [3]int
var y int
var f atomic int
var m mutex
var m2 mutex
var cv cond

func fib(n int) int {
    if n <= 1 {
        return n + y
    }
    var t int = fib(n - 1)
    x[n % 3] = t
    return t + fib(n - 2)
}

func loc(a int) int {
    var arr [4]int
    arr[a % 4] = a
    var s int
    for i in 0..4 {
        s += arr[i]
    }
    return s
}

func spin() int {
    while f == 0 {
    }
    return f
}

proc w(id int) {
`)
	g.block(&sb, 1, 3, false)
	sb.WriteString("}\n")
	threads := 1 + r.Intn(2)
	for i := range threads {
		if r.Intn(2) == 0 {
			fmt.Fprintf(&sb, "\nthread t%d[k in 0..2] {\n", i)
		} else {
			fmt.Fprintf(&sb, "\nthread t%d {\n", i)
		}
		g.block(&sb, 1, 4+r.Intn(4), true)
		sb.WriteString("}\n")
	}
	return sb.String()
}

type gen struct {
	r     *rand.Rand
	loops int
}

func (g *gen) ind(sb *strings.Builder, d int) { sb.WriteString(strings.Repeat("    ", d)) }

// block writes n statements; the first declares the locals a body uses.
func (g *gen) block(sb *strings.Builder, d, n int, top bool) {
	if d == 1 {
		g.ind(sb, d)
		sb.WriteString("var a int\n")
		g.ind(sb, d)
		sb.WriteString("var b int = choose 0..3\n")
		g.ind(sb, d)
		sb.WriteString("var la [3]int\n")
		g.ind(sb, d)
		sb.WriteString("var h tid\n")
		g.ind(sb, d)
		sb.WriteString("la[b] = b\n") // use them all: no unused-variable warning matters, but be tidy
	}
	for range n {
		g.stmt(sb, d, top)
	}
	if d == 1 {
		g.ind(sb, d)
		sb.WriteString("y = a + la[1] + b\n")
		if top {
			g.ind(sb, d)
			sb.WriteString("if h != h {\n")
			g.ind(sb, d+1)
			sb.WriteString("join h\n")
			g.ind(sb, d)
			sb.WriteString("}\n")
		}
	}
}

func (g *gen) expr() string {
	switch g.r.Intn(9) {
	case 0:
		return fmt.Sprint(g.r.Intn(4))
	case 1:
		return "a"
	case 2:
		return "b"
	case 3:
		return fmt.Sprintf("x[%d]", g.r.Intn(3))
	case 4:
		return "y"
	case 5:
		return "f"
	case 6:
		return fmt.Sprintf("la[%d]", g.r.Intn(3))
	case 7:
		return "a + 1"
	}
	return "b % 2"
}

func (g *gen) cond() string {
	ops := []string{"==", "!=", "<", ">="}
	return g.expr() + " " + ops[g.r.Intn(len(ops))] + " " + g.expr()
}

func (g *gen) stmt(sb *strings.Builder, d int, top bool) {
	line := func(s string, args ...any) {
		g.ind(sb, d)
		fmt.Fprintf(sb, s+"\n", args...)
	}
	if d > 3 {
		line("a = %s", g.expr())
		return
	}
	switch g.r.Intn(25) {
	case 0, 1:
		line("a = %s", g.expr())
	case 2:
		line("b = %s", g.expr())
	case 3:
		line("x[%d] = %s", g.r.Intn(3), g.expr())
	case 4:
		line("y = %s", g.expr())
	case 5:
		line("f = %s", g.expr())
	case 6:
		line("la[%d] = %s", g.r.Intn(3), g.expr())
	case 7:
		line("lock(m)")
		g.stmt(sb, d, top)
		line("unlock(m)")
	case 8:
		line("if %s {", g.cond())
		g.block(sb, d+1, 1+g.r.Intn(2), top)
		line("} else {")
		g.block(sb, d+1, 1, top)
		line("}")
	case 9:
		g.loops++
		line("for i%d in 0..2 {", g.loops)
		g.block(sb, d+1, 1+g.r.Intn(2), top)
		line("}")
	case 10:
		line("while a < 2 {")
		line("    a = a + 1")
		g.block(sb, d+1, 1, top)
		line("}")
	case 11:
		line("while f == 0 {")
		line("}")
	case 12:
		line("await y != %d || f > 0", g.r.Intn(3))
	case 13:
		line("atomic {")
		line("    x[%d] = x[%d] + %s", g.r.Intn(3), g.r.Intn(3), g.expr())
		line("    y = a")
		line("}")
	case 14:
		line("a = fib(%d)", g.r.Intn(4))
	case 15:
		line("b = loc(a)")
	case 16:
		if top {
			line("h = spawn w(a)")
			if g.r.Intn(2) == 0 {
				line("join h")
			}
		} else {
			line("a = spin()")
		}
	case 17:
		line("a = choose 0..%d", 1+g.r.Intn(3))
	case 18:
		line("if trylock(m2) {")
		line("    y = y + 1")
		line("    unlock(m2)")
		line("}")
	case 19:
		line("lock(m)")
		line("while y == 0 {")
		line("    wait(cv, m)")
		line("}")
		line("unlock(m)")
	case 20:
		line("lock(m)")
		line("y = 1")
		if g.r.Intn(2) == 0 {
			line("signal(cv)")
		} else {
			line("broadcast(cv)")
		}
		line("unlock(m)")
	case 21:
		// A test-and-set lock: a failed attempt writes f over itself.
		line("while true {")
		line("    atomic {")
		line("        a = f")
		line("        f = 1")
		line("    }")
		line("    if a == 0 {")
		line("        break")
		line("    }")
		line("}")
		line("f = 0")
	case 22:
		// A trylock lock: a failed attempt changes nothing.
		line("while !trylock(m2) {")
		line("}")
		line("y = y + 1")
		line("unlock(m2)")
	case 23:
		// A wait whose iteration writes back what it read.
		line("while f == 0 {")
		line("    x[%d] = x[%d]", g.r.Intn(3), g.r.Intn(3))
		line("}")
	default:
		line("assert %s", g.cond())
	}
}

// walkFingerprint makes a random walk of steps (and undos now and then,
// and every step undone at the end) on a machine with a fingerprint and
// checks after each that the incremental value is the one computed from
// scratch. Where two threads' next steps are plain accesses of different
// locations it also checks that both orders reach the same fingerprint.
func walkFingerprint(t *testing.T, name string, prog *ir.Program, seed int64, steps int) {
	r := rand.New(rand.NewSource(seed))
	m, err := NewMachineConfig(prog, Config{Fingerprint: true, NoSpinWait: seed%5 == 4, SpuriousWakeups: seed%3 == 2})
	if err != nil {
		t.Fatal(err)
	}
	m.Coarse = seed%2 == 1
	check := func(what string) {
		t.Helper()
		got, ok := m.Fingerprint()
		if !ok {
			t.Fatalf("%s seed %d: no fingerprint", name, seed)
		}
		if want := m.RecomputeFingerprint(); got != want {
			t.Fatalf("%s seed %d, %s (depth %d): incremental %x, from scratch %x", name, seed, what, m.Depth(), got, want)
		}
	}
	check("initial state")
	var ev Event
	var before []Fingerprint
	for range steps {
		var enabled []int
		for i := range m.Threads {
			if m.Enabled(i) {
				enabled = append(enabled, i)
			}
		}
		if len(enabled) == 0 {
			break
		}
		fp, _ := m.Fingerprint()
		if !m.Coarse && len(enabled) >= 2 {
			checkDiamond(t, m, enabled[r.Intn(len(enabled))], enabled[r.Intn(len(enabled))], name, seed)
		}
		th := enabled[r.Intn(len(enabled))]
		alt := r.Intn(m.Alternatives(th))
		ok := m.StepAlt(th, alt, &ev)
		before = append(before, fp)
		check(fmt.Sprintf("after a step of %s", m.Threads[th].Name))
		if !ok || r.Intn(4) == 0 {
			m.Undo()
			check("after an undo")
			if got, _ := m.Fingerprint(); got != before[len(before)-1] {
				t.Fatalf("%s seed %d: undo did not restore the fingerprint", name, seed)
			}
			before = before[:len(before)-1]
			if !ok {
				break
			}
		}
	}
	for len(before) > 0 {
		m.Undo()
		check("unwinding")
		if got, _ := m.Fingerprint(); got != before[len(before)-1] {
			t.Fatalf("%s seed %d: undo did not restore the fingerprint", name, seed)
		}
		before = before[:len(before)-1]
	}
}

// checkDiamond steps a then b, and b then a, where both are plain
// accesses of different locations (independent steps), and checks that
// both orders reach the same fingerprint; it leaves the machine as it
// found it.
func checkDiamond(t *testing.T, m *Machine, a, b int, name string, seed int64) {
	t.Helper()
	if a == b || m.Alternatives(a) != 1 || m.Alternatives(b) != 1 {
		return
	}
	ka, la := m.Peek(a)
	kb, lb := m.Peek(b)
	plain := func(k ir.EventKind) bool { return k == ir.EvRead || k == ir.EvWrite }
	if !plain(ka) || !plain(kb) || la == lb {
		return
	}
	var ev Event
	run := func(first, second int) (Fingerprint, bool) {
		depth := m.Depth()
		defer m.UndoTo(depth)
		if !m.Step(first, &ev) || !m.Enabled(second) || !m.Step(second, &ev) {
			return Fingerprint{}, false
		}
		fp, _ := m.Fingerprint()
		return fp, true
	}
	ab, ok1 := run(a, b)
	ba, ok2 := run(b, a)
	if ok1 && ok2 && ab != ba {
		t.Fatalf("%s seed %d: %s then %s gives %x, the other order %x", name, seed, m.Threads[a].Name, m.Threads[b].Name, ab, ba)
	}
}

// TestFingerprintIncremental checks the incremental fingerprint against
// the one computed from scratch after every step and undo of random
// walks on random models, the examples and the benchmarks.
func TestFingerprintIncremental(t *testing.T) {
	progs := map[string]*ir.Program{}
	var files []string
	for _, g := range []string{"../../examples/*.weft", "../../benchmarks/*.weft", "../../benchmarks/cdpor/*.weft"} {
		f, _ := filepath.Glob(g)
		files = append(files, f...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d models found", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs[f] = loadSrc(t, f, string(src))
	}
	for name, p := range progs {
		for seed := range int64(6) {
			walkFingerprint(t, name, p, seed, 300)
		}
	}
	n := 300
	if testing.Short() {
		n = 60
	}
	compiled := 0
	for i := range n {
		src := genModel(rand.New(rand.NewSource(int64(i))))
		ld := lower.Load("random", []byte(src))
		if ld.Exec == nil {
			t.Fatalf("random model %d does not compile: %v\n%s", i, ld.Diagnostics, src)
		}
		compiled++
		for seed := range int64(4) {
			walkFingerprint(t, fmt.Sprintf("random model %d", i), ld.Exec, seed, 400)
		}
	}
}

// checkSensitivity changes one part of m's state at a time, in place,
// and checks that the fingerprint computed from scratch changes (a
// shared word, a lock owner, a pc, a live slot, whether a thread waits,
// a spin record's slot or the staleness of its reads) or does not (a
// dead slot); it restores each part after.
func checkSensitivity(t *testing.T, m *Machine, r *rand.Rand, name string) {
	t.Helper()
	base := m.RecomputeFingerprint()
	expect := func(what string, differ bool) {
		t.Helper()
		if got := m.RecomputeFingerprint(); (got != base) != differ {
			verb := "changed"
			if differ {
				verb = "did not change"
			}
			t.Fatalf("%s: %s %s the fingerprint", name, what, verb)
		}
	}
	// A shared word, and a lock owner.
	if len(m.Mem) > 0 {
		l := r.Intn(len(m.Mem))
		old := m.Mem[l]
		m.Mem[l] = old + 1 + int64(r.Intn(3))
		expect("a shared word", true)
		m.Mem[l] = old
	}
	for l, loc := range m.Prog.Locations {
		if loc.Mutex && m.Mem[l] != 0 {
			old := m.Mem[l]
			m.Mem[l] = old%int64(len(m.Threads)+1) + 1
			if m.Mem[l] == old {
				m.Mem[l] = 0
			}
			expect("a lock owner", true)
			m.Mem[l] = old
			break
		}
	}
	tab := m.fp.tab
	for i, th := range m.Threads {
		// The pc.
		old := th.PC
		th.PC = (th.PC + 1) % int32(len(th.Body.Code))
		expect("a pc", true)
		th.PC = old
		// Waiting.
		th.cond.waiting = !th.cond.waiting
		expect("waiting", true)
		th.cond.waiting = !th.cond.waiting
		if th.Status == Finished {
			continue
		}
		// The innermost frame: a live slot, and a dead one.
		body := tab.bodies[th.Body]
		live := body.live.In(th.PC)
		if s := live.Slots(); len(s) > 0 {
			slot := s[r.Intn(len(s))]
			v := th.Frame[slot]
			th.Frame[slot] = v + 1
			expect(fmt.Sprintf("live slot %d of %s at pc %d", slot, th.Name, th.PC), true)
			th.Frame[slot] = v
		}
		lo, hi := regionOf(th.Body, th.PC)
		for pc := lo; pc < hi; pc++ {
			dead := -1
			for _, s := range body.live.In(pc).Slots() {
				if !live.Has(s) {
					dead = int(s)
					break
				}
			}
			if dead >= 0 {
				v := th.Frame[dead]
				th.Frame[dead] = v + 7
				expect(fmt.Sprintf("dead slot %d of %s at pc %d", dead, th.Name, th.PC), false)
				th.Frame[dead] = v
				break
			}
		}
		// The spin record.
		s := &th.spin
		if !m.spinKey(s).alive {
			continue
		}
		if s.slotN > 0 {
			old := m.spinSlots[s.slotLo]
			m.spinSlots[s.slotLo]++
			expect("a spin slot", true)
			m.spinSlots[s.slotLo] = old
		}
		if s.reads >= 0 {
			rd := &m.spinReads[s.reads]
			fresh := m.writes[rd.loc] == rd.writes
			old := m.writes[rd.loc]
			if fresh {
				m.writes[rd.loc]++
			} else {
				m.writes[rd.loc] = rd.writes
			}
			expect(fmt.Sprintf("the staleness of a spin read of %s (thread %d)", m.Prog.Locations[rd.loc].Name, i), true)
			m.writes[rd.loc] = old
		}
	}
}

// regionOf is the code of the region (the body's own or a function's)
// holding pc.
func regionOf(b *ir.Body, pc int32) (int32, int32) {
	for _, f := range b.Funcs {
		if pc >= f.Entry && pc < f.End {
			return f.Entry, f.End
		}
	}
	if len(b.Funcs) > 0 {
		return 0, b.Funcs[0].Entry
	}
	return 0, int32(len(b.Code))
}

// TestFingerprintDistinguishes walks random models and the examples and,
// in every state, checks what changes the fingerprint and what does not
// (checkSensitivity).
func TestFingerprintDistinguishes(t *testing.T) {
	progs := map[string]*ir.Program{}
	files, _ := filepath.Glob("../../examples/*.weft")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs[f] = loadSrc(t, f, string(src))
	}
	for i := range 40 {
		progs[fmt.Sprintf("random model %d", i)] = loadSrc(t, "random", genModel(rand.New(rand.NewSource(int64(1000+i)))))
	}
	for name, prog := range progs {
		r := rand.New(rand.NewSource(1))
		m, err := NewMachineConfig(prog, Config{Fingerprint: true})
		if err != nil {
			t.Fatal(err)
		}
		var ev Event
		for range 60 {
			checkSensitivity(t, m, r, name)
			var enabled []int
			for i := range m.Threads {
				if m.Enabled(i) {
					enabled = append(enabled, i)
				}
			}
			if len(enabled) == 0 {
				break
			}
			th := enabled[r.Intn(len(enabled))]
			if !m.StepAlt(th, r.Intn(m.Alternatives(th)), &ev) {
				break
			}
		}
	}
}

// TestFingerprintSchedules: states reached by different schedules hash
// equal when they are the same state, dead slots aside, and differently
// when a live slot tells them apart.
func TestFingerprintSchedules(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		a, b  []int // two schedules (thread indexes)
		equal bool
	}{
		{"independent writes in either order", `
var x int
var y int
thread a {
    x = 1
}
thread b {
    y = 2
}
`, []int{0, 1}, []int{1, 0}, true},
		{"a value read and never used again (dead) differs", `
var x int
var y int
thread a {
    var v int = x
    y = 1
    assert v >= 0
    y = 2
}
thread b {
    x = 1
}
`, []int{1, 0, 0, 0}, []int{0, 1, 0, 0}, true},
		{"a value read and used later (live) differs", `
var x int
var y int
thread a {
    var v int = x
    y = 1
    y = v
}
thread b {
    x = 1
}
`, []int{1, 0, 0}, []int{0, 1, 0}, false},
		{"the same lock taken by either thread", `
var m mutex
thread a {
    lock(m)
}
thread b {
    lock(m)
}
`, []int{0}, []int{1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := loadSrc(t, tt.name, tt.src)
			run := func(sched []int) (Fingerprint, *Machine) {
				m, err := NewMachineConfig(prog, Config{Fingerprint: true})
				if err != nil {
					t.Fatal(err)
				}
				var ev Event
				for _, th := range sched {
					if !m.Enabled(th) || !m.Step(th, &ev) {
						t.Fatalf("schedule %v: thread %d cannot step", sched, th)
					}
				}
				fp, _ := m.Fingerprint()
				if want := m.RecomputeFingerprint(); fp != want {
					t.Fatalf("schedule %v: incremental %x, from scratch %x", sched, fp, want)
				}
				return fp, m
			}
			fa, ma := run(tt.a)
			fb, mb := run(tt.b)
			if (fa == fb) != tt.equal {
				t.Errorf("fingerprints equal: %v, want %v", fa == fb, tt.equal)
			}
			if tt.equal && tt.a[0] != tt.b[0] && len(tt.a) > 2 {
				// The states differ in the dead slot: not a vacuous test.
				if fmt.Sprint(ma.Threads[0].Frame) == fmt.Sprint(mb.Threads[0].Frame) {
					t.Errorf("the frames are equal: the dead slot is not exercised")
				}
			}
		})
	}
}

// TestFingerprintOff: a machine made without Config.Fingerprint keeps
// none, and one made with it keeps the same value whether or not others
// are made.
func TestFingerprintOff(t *testing.T) {
	prog := loadSrc(t, "off", "var x int\nthread a {\n    x = 1\n}\n")
	m := NewMachine(prog, 0)
	if _, ok := m.Fingerprint(); ok || m.fp != nil {
		t.Errorf("a machine without Config.Fingerprint has a fingerprint")
	}
	on, err := NewMachineConfig(prog, Config{Fingerprint: true})
	if err != nil {
		t.Fatal(err)
	}
	fp, ok := on.Fingerprint()
	if !ok || fp != m.RecomputeFingerprint() {
		t.Errorf("Fingerprint %x (%v), from scratch on the other machine %x", fp, ok, m.RecomputeFingerprint())
	}
}

// FuzzFingerprint checks the incremental fingerprint against the one
// computed from scratch on random walks of any model that loads.
func FuzzFingerprint(f *testing.F) {
	files, _ := filepath.Glob("../../examples/*.weft")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, int64(1))
	}
	for i := range 10 {
		f.Add([]byte(genModel(rand.New(rand.NewSource(int64(i))))), int64(i))
	}
	f.Fuzz(func(t *testing.T, src []byte, seed int64) {
		ld := lower.Load("fuzz", src)
		if ld.Exec == nil {
			return
		}
		walkFingerprint(t, "fuzz", ld.Exec, seed, 200)
	})
}

// canonicalState writes out, independently of the fingerprint's code,
// what the fingerprint is meant to hash: two states with the same text
// must have the same fingerprint, and (but for a collision) states with
// different texts different ones.
func canonicalState(m *Machine, tab *fpTables) string {
	var sb strings.Builder
	fmt.Fprint(&sb, m.Mem)
	for i, th := range m.Threads {
		body := tab.bodies[th.Body]
		fmt.Fprintf(&sb, "|%d b%d s%d pc%d d%d w%v", i, body.index, th.Status, th.PC, th.CallDepth(), th.cond.waiting)
		if th.Status == Failing {
			fmt.Fprintf(&sb, " fail%v", th.fail)
		}
		depth := int32(th.CallDepth())
		for d := int32(0); d <= depth; d++ {
			words, _ := th.frameAt(d)
			var live ir.SlotSet
			if d == depth {
				live = body.live.In(th.PC)
			} else {
				site := th.calls.sites[d]
				fmt.Fprintf(&sb, " @%d", site)
				live = body.live.Suspended(site)
			}
			for _, s := range live.Slots() {
				fmt.Fprintf(&sb, " %d:%d", s, words[s])
			}
		}
		if s := &th.spin; s.at != 0 && s.pure {
			fmt.Fprintf(&sb, " spin%d/%d %v", s.at, s.depth, m.spinSlots[s.slotLo:s.slotLo+s.slotN])
			var reads []string
			for r := s.reads; r >= 0; r = m.spinReads[r].prev {
				rd := m.spinReads[r]
				reads = append(reads, fmt.Sprintf("%d=%d/%v", rd.loc, rd.value, m.writes[rd.loc] > rd.writes))
			}
			slices.Sort(reads)
			fmt.Fprint(&sb, reads)
		}
	}
	return sb.String()
}

// TestFingerprintMatchesStates explores small models depth first (every
// schedule, every alternative, up to a bound on the states visited) and
// checks that the fingerprint and the canonical text of the state
// (canonicalState) identify the same states: every state reached by two
// paths hashes equal, and no two different states collide.
func TestFingerprintMatchesStates(t *testing.T) {
	progs := map[string]*ir.Program{}
	for _, name := range []string{"lost_update", "prodcons_cond", "peterson_spin", "lost_wakeup", "thread_pool", "dekker"} {
		src, err := os.ReadFile(filepath.Join("../../examples", name+".weft"))
		if err != nil {
			t.Fatal(err)
		}
		progs[name] = loadSrc(t, name, string(src))
	}
	for i := range 12 {
		progs[fmt.Sprintf("random model %d", i)] = loadSrc(t, "random", genModel(rand.New(rand.NewSource(int64(2000+i)))))
	}
	total := 0
	for name, prog := range progs {
		m, err := NewMachineConfig(prog, Config{Fingerprint: true})
		if err != nil {
			t.Fatal(err)
		}
		byText := map[string]Fingerprint{}
		byFP := map[Fingerprint]string{}
		visits, revisits := 0, 0
		var ev Event
		var dfs func(depth int)
		dfs = func(depth int) {
			if visits >= 20000 || depth > 60 {
				return
			}
			visits++
			fp, _ := m.Fingerprint()
			text := canonicalState(m, m.fp.tab)
			if old, ok := byText[text]; ok {
				revisits++
				if old != fp {
					t.Fatalf("%s: one state, two fingerprints %x and %x:\n%s", name, old, fp, text)
				}
				return // explored from here already
			}
			if old, ok := byFP[fp]; ok {
				t.Fatalf("%s: two states, one fingerprint %x:\n%s\n%s", name, fp, old, text)
			}
			byText[text], byFP[fp] = fp, text
			for th := range m.Threads {
				if !m.Enabled(th) {
					continue
				}
				for alt := range m.Alternatives(th) {
					ok := m.StepAlt(th, alt, &ev)
					if ok {
						dfs(depth + 1)
					}
					m.Undo()
				}
			}
		}
		dfs(0)
		total += revisits
		t.Logf("%s: %d states, %d reached again", name, len(byText), revisits)
	}
	if total < 1000 {
		t.Errorf("only %d states reached by a second path: too little compared", total)
	}
}
