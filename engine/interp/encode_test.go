package interp

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"weft/analysis/lower"
	"weft/engine/ir"
)

// stateIndex checks, over every state handed to it, that equal encodings
// and equal fingerprints go together: each encoding has one fingerprint
// and each fingerprint one encoding.
type stateIndex struct {
	byEnc map[string]Fingerprint
	byFP  map[Fingerprint]string
}

func newStateIndex() *stateIndex {
	return &stateIndex{byEnc: map[string]Fingerprint{}, byFP: map[Fingerprint]string{}}
}

func (x *stateIndex) add(t *testing.T, what string, enc []byte, fp Fingerprint) {
	t.Helper()
	if old, ok := x.byEnc[string(enc)]; ok && old != fp {
		t.Fatalf("%s: one encoding, two fingerprints %x and %x", what, old, fp)
	}
	if old, ok := x.byFP[fp]; ok && old != string(enc) {
		t.Fatalf("%s: one fingerprint %x, two encodings\n%x\n%x", what, fp, old, enc)
	}
	x.byEnc[string(enc)], x.byFP[fp] = fp, string(enc)
}

// walkState makes a random walk of steps and undos (as walkFingerprint
// does) on two machines in lockstep, one with the fingerprint and one
// without: their encodings must be equal after every step and undo, and
// over the whole walk equal encodings must go with equal fingerprints.
// Where two threads' next steps are plain accesses of different
// locations, both orders must reach the same encoding.
func walkState(t *testing.T, name string, prog *ir.Program, seed int64, steps int) int {
	r := rand.New(rand.NewSource(seed))
	cfg := Config{NoSpinWait: seed%5 == 4, SpuriousWakeups: seed%3 == 2}
	off, err := NewMachineConfig(prog, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Fingerprint = true
	on, err := NewMachineConfig(prog, cfg)
	if err != nil {
		t.Fatal(err)
	}
	on.Coarse, off.Coarse = seed%2 == 1, seed%2 == 1
	idx := newStateIndex()
	var bufOn, bufOff []byte
	check := func(what string) {
		t.Helper()
		bufOn, bufOff = on.AppendState(bufOn[:0]), off.AppendState(bufOff[:0])
		if !bytes.Equal(bufOn, bufOff) {
			t.Fatalf("%s seed %d, %s: the encodings with and without the fingerprint differ", name, seed, what)
		}
		fp, _ := on.Fingerprint()
		idx.add(t, fmt.Sprintf("%s seed %d, %s", name, seed, what), bufOn, fp)
	}
	check("initial state")
	var ev Event
	depth := 0
	for range steps {
		var enabled []int
		for i := range on.Threads {
			if on.Enabled(i) {
				enabled = append(enabled, i)
			}
		}
		if len(enabled) == 0 {
			break
		}
		if !on.Coarse && len(enabled) >= 2 {
			checkDiamondState(t, on, enabled[r.Intn(len(enabled))], enabled[r.Intn(len(enabled))], name, seed)
		}
		th := enabled[r.Intn(len(enabled))]
		alt := r.Intn(on.Alternatives(th))
		ok := on.StepAlt(th, alt, &ev)
		if ok2 := off.StepAlt(th, alt, &ev); ok2 != ok {
			t.Fatalf("%s seed %d: the machines disagree on a step", name, seed)
		}
		depth++
		check(fmt.Sprintf("after a step of %s", on.Threads[th].Name))
		if !ok || r.Intn(4) == 0 {
			on.Undo()
			off.Undo()
			depth--
			check("after an undo")
			if !ok {
				break
			}
		}
	}
	for depth > 0 {
		on.Undo()
		off.Undo()
		depth--
		check("unwinding")
	}
	return len(idx.byEnc)
}

// checkDiamondState is checkDiamond for the encoding: steps a then b,
// and b then a, plain accesses of different locations, reach the same
// encoding.
func checkDiamondState(t *testing.T, m *Machine, a, b int, name string, seed int64) {
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
	run := func(first, second int) ([]byte, bool) {
		depth := m.Depth()
		defer m.UndoTo(depth)
		if !m.Step(first, &ev) || !m.Enabled(second) || !m.Step(second, &ev) {
			return nil, false
		}
		return m.AppendState(nil), true
	}
	ab, ok1 := run(a, b)
	ba, ok2 := run(b, a)
	if ok1 && ok2 && !bytes.Equal(ab, ba) {
		t.Fatalf("%s seed %d: %s then %s and the other order give different encodings", name, seed, m.Threads[a].Name, m.Threads[b].Name)
	}
}

// modelFiles are the examples and the benchmarks, loaded.
func modelFiles(t *testing.T) map[string]*ir.Program {
	t.Helper()
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
	return progs
}

// TestAppendStateMatchesFingerprint: on random walks of the examples,
// the benchmarks and random models, equal encodings iff equal
// fingerprints, the same encoding with and without the fingerprint, and
// commuting steps reach one encoding.
func TestAppendStateMatchesFingerprint(t *testing.T) {
	states := 0
	for name, p := range modelFiles(t) {
		for seed := range int64(4) {
			states += walkState(t, name, p, seed, 300)
		}
	}
	n := 200
	if testing.Short() {
		n = 40
	}
	for i := range n {
		src := genModel(rand.New(rand.NewSource(int64(i))))
		ld := lower.Load("random", []byte(src))
		if ld.Exec == nil {
			t.Fatalf("random model %d does not compile: %v\n%s", i, ld.Diagnostics, src)
		}
		for seed := range int64(4) {
			states += walkState(t, fmt.Sprintf("random model %d", i), ld.Exec, seed, 400)
		}
	}
	t.Logf("%d distinct states", states)
}

// TestAppendStateMatchesStates explores small models depth first, as
// TestFingerprintMatchesStates does, and checks that the encoding, the
// canonical text of the state (canonicalState, written independently)
// and the fingerprint identify the same states: states reached by
// different paths (commuting steps) encode equal, different ones
// differently.
func TestAppendStateMatchesStates(t *testing.T) {
	progs := map[string]*ir.Program{}
	for _, name := range []string{"lost_update", "prodcons_cond", "peterson_spin", "lost_wakeup", "thread_pool", "dekker", "tas_lock", "trylock_lock", "spinlock"} {
		src, err := os.ReadFile(filepath.Join("../../examples", name+".weft"))
		if err != nil {
			t.Fatal(err)
		}
		progs[name] = loadSrc(t, name, string(src))
	}
	for i := range 12 {
		progs[fmt.Sprintf("random model %d", i)] = loadSrc(t, "random", genModel(rand.New(rand.NewSource(int64(3000+i)))))
	}
	total := 0
	for name, prog := range progs {
		m, err := NewMachineConfig(prog, Config{Fingerprint: true})
		if err != nil {
			t.Fatal(err)
		}
		byText := map[string]string{}
		byEnc := map[string]string{}
		idx := newStateIndex()
		visits, revisits := 0, 0
		var ev Event
		var dfs func(depth int)
		dfs = func(depth int) {
			if visits >= 20000 || depth > 60 {
				return
			}
			visits++
			enc := string(m.AppendState(nil))
			fp, _ := m.Fingerprint()
			idx.add(t, name, []byte(enc), fp)
			text := canonicalState(m, m.fp.tab)
			if old, ok := byText[text]; ok {
				revisits++
				if old != enc {
					t.Fatalf("%s: one state, two encodings:\n%s", name, text)
				}
				return
			}
			if old, ok := byEnc[enc]; ok {
				t.Fatalf("%s: two states, one encoding:\n%s\n%s", name, old, text)
			}
			byText[text], byEnc[enc] = enc, text
			for th := range m.Threads {
				if !m.Enabled(th) {
					continue
				}
				for alt := range m.Alternatives(th) {
					if m.StepAlt(th, alt, &ev) {
						dfs(depth + 1)
					}
					m.Undo()
				}
			}
		}
		dfs(0)
		total += revisits
		t.Logf("%s: %d states, %d revisits", name, len(byText), revisits)
	}
	if total < 1000 {
		t.Errorf("%d states reached twice in all: the test shows little", total)
	}
}

// TestAppendStateSpinReadsUnordered: the reads of a spin record are
// encoded as a set (the fingerprint sums them), so their order does not
// matter, and sortRecords sorts as a sort of the records would.
func TestAppendStateSpinReadsUnordered(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := range 40 {
		var recs [][]byte
		var flat []byte
		for range n {
			rec := make([]byte, spinReadBytes)
			for i := range rec {
				rec[i] = byte(r.Intn(3)) // many equal bytes: ties
			}
			recs = append(recs, rec)
			flat = append(flat, rec...)
		}
		sortRecords(flat, spinReadBytes)
		slices.SortFunc(recs, bytes.Compare)
		if want := bytes.Join(recs, nil); !bytes.Equal(flat, want) {
			t.Fatalf("%d records: sortRecords gives %x, want %x", n, flat, want)
		}
	}
	// A spinner that read x then y, and the same with its two reads
	// swapped in the record (as another interleaving can leave them, a
	// location read twice with writes in between): one fingerprint, one
	// encoding.
	prog := loadSrc(t, "order", "var x atomic int\nvar y atomic int = 1\nthread s {\n    while x + y == 1 {\n    }\n}\n")
	m := NewMachine(prog, 0)
	for i := 0; m.Enabled(0) && i < 20; i++ {
		mustStep(t, m, 0)
	}
	s := &m.Threads[0].spin
	if m.Threads[0].Status != Spinning || s.reads < 0 || m.spinReads[s.reads].prev < 0 {
		t.Fatalf("the thread is %v with reads %v, want spinning after two reads", m.Threads[0].Status, m.SpinReads(0))
	}
	fp, enc := m.RecomputeFingerprint(), m.AppendState(nil)
	a, b := &m.spinReads[s.reads], &m.spinReads[m.spinReads[s.reads].prev]
	a.loc, b.loc = b.loc, a.loc
	a.value, b.value = b.value, a.value
	a.writes, b.writes = b.writes, a.writes
	if m.RecomputeFingerprint() != fp {
		t.Fatalf("the fingerprint depends on the order of the reads")
	}
	if !bytes.Equal(m.AppendState(nil), enc) {
		t.Errorf("reads in another order give another encoding")
	}
}

// TestAppendStateNoAlloc: with room in buf, AppendState allocates
// nothing, with the fingerprint or without (after its first call, which
// makes the liveness tables).
func TestAppendStateNoAlloc(t *testing.T) {
	src, err := os.ReadFile("../../examples/prodcons_cond.weft")
	if err != nil {
		t.Fatal(err)
	}
	prog := loadSrc(t, "prodcons_cond", string(src))
	for _, fp := range []bool{false, true} {
		m, err := NewMachineConfig(prog, Config{Fingerprint: fp})
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			mustStep(t, m, 0)
		}
		buf := m.AppendState(nil)
		if n := testing.AllocsPerRun(100, func() { buf = m.AppendState(buf[:0]) }); n != 0 {
			t.Errorf("fingerprint %v: %v allocations per call", fp, n)
		}
	}
}

// TestAppendStateLeavesMachine: AppendState on a machine without a
// fingerprint gives it none, and changes nothing a step does.
func TestAppendStateLeavesMachine(t *testing.T) {
	prog := loadSrc(t, "m", "var x int\nthread a {\n    x = 1\n    x = 2\n}\n")
	m := NewMachine(prog, 0)
	before := spinSnapshot(m)
	m.AppendState(nil)
	if _, ok := m.Fingerprint(); ok || m.fp != nil {
		t.Errorf("AppendState made a fingerprint")
	}
	if got := spinSnapshot(m); got != before {
		t.Errorf("AppendState changed the state:\n got %s\nwant %s", got, before)
	}
}

// FuzzAppendState checks the encoding against the fingerprint (equal iff
// equal, the same with and without it) on random walks of any model
// that loads.
func FuzzAppendState(f *testing.F) {
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
		walkState(t, "fuzz", ld.Exec, seed, 200)
	})
}
