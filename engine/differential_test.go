package engine_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine"
)

// load parses, checks and lowers a model, failing the test on any error.
func load(t testing.TB, name, src string) *engine.Program {
	t.Helper()
	ld := lower.Load(name, []byte(src))
	for _, d := range ld.Diagnostics {
		if d.Severity == 1 {
			t.Fatalf("%s: %s\n%s", name, d, src)
		}
	}
	if ld.Exec == nil {
		t.Fatalf("%s: not lowered", name)
	}
	if m := maxStepsDirective.FindStringSubmatch(src); m != nil {
		n, _ := strconv.Atoi(m[1])
		stepBounds.Store(ld.Exec, n)
	}
	return ld.Exec
}

// defaultTestMaxSteps is the step bound of the tests' explorations.
const defaultTestMaxSteps = 2000

// A test program may set its own step bound with a line
// "// max-steps: N": a spin-wait model reaches any bound, and DFS has about
// N^k interleavings of a spin of N steps beside k steps of a setter.
var (
	maxStepsDirective = regexp.MustCompile(`(?m)^// max-steps: (\d+)$`)
	stepBounds        sync.Map // *engine.Program → int, from load
)

// maxSteps is the step bound to explore prog with.
func maxSteps(prog *engine.Program) int {
	if n, ok := stepBounds.Load(prog); ok {
		return n.(int)
	}
	return defaultTestMaxSteps
}

// outcome is what an exploration handed to OnExecution, in a form two
// modes can compare.
type outcome struct {
	res *engine.Result
	// traces holds the Foata normal forms of the executions that did not
	// end in a stop (collected only when asked for).
	traces map[string]bool
	// finals holds the final shared memory of the executions that did not
	// end in a stop (collected with traces): CDPOR, which merges traces
	// whose order only conditionally matters, must reach each of them.
	finals map[string]bool
	// nonStopped counts the executions whose last event is not a stop
	// (they ended normally, in a deadlock, or at the step bound); stops
	// those that ended in a stop (assertion, assume, runtime error, local
	// budget), assumeEnded those of them that ended in a failed assume.
	nonStopped, stops, assumeEnded int64
	// restarts counts the coarse explorations given up at a data race.
	restarts int
}

func explore(t testing.TB, prog *engine.Program, algo engine.Algorithm, traces bool) outcome {
	t.Helper()
	return exploreWith(t, prog, engine.Options{Algorithm: algo, MaxSteps: maxSteps(prog)}, traces)
}

// exploreWith explores with opts, classifying the executions handed to
// OnExecution (and collecting the Foata normal forms of those that did not
// stop when traces is set). It checks that the statistics agree with the
// executions: every execution counted is handed over, and AssumeBlocked
// counts those whose last event is a failed assume.
func exploreWith(t testing.TB, prog *engine.Program, opts engine.Options, traces bool) outcome {
	t.Helper()
	out := outcome{traces: make(map[string]bool), finals: make(map[string]bool)}
	var fw foataWriter
	opts.OnExecution = func(events []engine.Event, m *engine.Machine) {
		last := engine.NoStop
		if len(events) > 0 {
			last = events[len(events)-1].Stop
		}
		switch last {
		case engine.NoStop:
			out.nonStopped++
			if traces {
				if form := fw.form(events, m); !out.traces[string(form)] {
					out.traces[string(form)] = true
				}
				out.finals[fmt.Sprint(m.Mem)] = true
			}
		case engine.StopAssume:
			out.assumeEnded++
			out.stops++
		default:
			out.stops++
		}
	}
	opts.OnRestart = func() {
		// The executions of the coarse exploration do not count.
		out = outcome{traces: make(map[string]bool), finals: make(map[string]bool), restarts: out.restarts + 1}
	}
	res, err := engine.Explore(context.Background(), prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	out.res = res
	mode := modeName(opts)
	if n := out.nonStopped + out.stops; res.Executions != n {
		t.Errorf("%s: Executions = %d, but %d executions were handed to OnExecution", mode, res.Executions, n)
	}
	if res.AssumeBlocked != out.assumeEnded {
		t.Errorf("%s: AssumeBlocked = %d, but %d executions handed to OnExecution end in a failed assume", mode, res.AssumeBlocked, out.assumeEnded)
	}
	return out
}

// modeName names the mode opts select, as the tests' messages do.
func modeName(opts engine.Options) string {
	if opts.Algorithm == engine.QPOR {
		return fmt.Sprintf("qpor-k%d", max(opts.K, 1))
	}
	if opts.Algorithm == "" {
		return string(engine.SDPOR)
	}
	return string(opts.Algorithm)
}

// threadID names a thread by its stable identity: declared threads by
// index, spawned threads by their parent and spawn index.
func threadID(m *engine.Machine, t int32) string {
	th := m.Threads[t]
	if th.Parent < 0 {
		return strconv.Itoa(int(t))
	}
	return threadID(m, th.Parent) + "/" + strconv.Itoa(int(th.SpawnIndex))
}

// foataWriter computes a canonical form of the Mazurkiewicz trace of an
// execution, its Foata normal form: its events grouped in Foata levels (an
// event's level is one more than the highest level of the earlier events
// it depends on), each level sorted. It reuses its buffers: a dfs
// reference computes one form per interleaving, millions for some
// examples.
type foataWriter struct {
	ids   []string
	order []int32
	buf   []byte
	lv    levelsBuf
}

// form returns the Foata form of an execution, valid until the next call.
func (f *foataWriter) form(events []engine.Event, m *engine.Machine) []byte {
	level := f.lv.levels(events, m)
	f.ids = append(f.ids[:0], make([]string, len(m.Threads))...)
	f.order = f.order[:0]
	for i := range events {
		f.order = append(f.order, int32(i))
		if t := events[i].Thread; f.ids[t] == "" {
			f.ids[t] = threadID(m, t)
		}
	}
	ids := f.ids
	slices.SortFunc(f.order, func(i, j int32) int {
		if c := cmp.Compare(level[i], level[j]); c != 0 {
			return c
		}
		if c := strings.Compare(ids[events[i].Thread], ids[events[j].Thread]); c != 0 {
			return c
		}
		return cmp.Compare(events[i].Index, events[j].Index)
	})
	buf := f.buf[:0]
	for n, i := range f.order {
		if n > 0 {
			if level[i] != level[f.order[n-1]] {
				buf = append(buf, '|')
			} else {
				buf = append(buf, ',')
			}
		}
		buf = append(buf, ids[events[i].Thread]...)
		buf = append(buf, '.')
		buf = strconv.AppendInt(buf, int64(events[i].Index), 10)
		if alt := events[i].Alt; alt != 0 { // which value, which waiter
			buf = append(buf, '/')
			buf = strconv.AppendInt(buf, int64(alt), 10)
		}
	}
	f.buf = append(buf, '|')
	return f.buf
}

// foataLevelsByDefinition computes the Foata level of every event as
// defined, comparing it with every earlier event: the reference that
// foataLevels is tested against (TestFoataLevels).
func foataLevelsByDefinition(events []engine.Event, m *engine.Machine) []int {
	level := make([]int, len(events))
	for i := range events {
		e := &events[i]
		lv := 0
		for j := 0; j < i; j++ {
			f := &events[j]
			if f.Thread == e.Thread || dependentEvents(f, e, m) {
				if level[j]+1 > lv {
					lv = level[j] + 1
				}
			}
		}
		level[i] = lv
	}
	return level
}

// foataLevels computes the same levels as foataLevelsByDefinition in
// linear time (dfs references have millions of executions). The earlier
// events an event depends on are totally ordered within each kind of
// dependence, so the highest level among them is that of the latest:
// the thread's previous event (or the spawn that created it), the last
// write of each location it reads, the last write and the reads since
// then of each location it writes, and for a join the joined thread's
// last event.
func foataLevels(events []engine.Event, m *engine.Machine) []int {
	var b levelsBuf
	return b.levels(events, m)
}

// levelsBuf holds foataLevels' buffers, for reuse.
type levelsBuf struct {
	level, threadLast, finished, lastWrite, readsSince []int
	accs                                               []engine.Access
}

// levels is foataLevels; the result is valid until the next call.
func (b *levelsBuf) levels(events []engine.Event, m *engine.Machine) []int {
	nt, nl := len(m.Threads), len(m.Mem)
	level := fill(&b.level, len(events), 0)
	// -1: no such event yet. threadLast[t] is the level of t's last event
	// (or of its spawn), finished[t] of the event that ended t.
	threadLast, finished := fill(&b.threadLast, nt, -1), fill(&b.finished, nt, -1)
	lastWrite, readsSince := fill(&b.lastWrite, nl, -1), fill(&b.readsSince, nl, -1)
	for i := range events {
		e := &events[i]
		b.accs = eventAccesses(e, b.accs[:0])
		lv := threadLast[e.Thread]
		if e.Kind == engine.EvJoin && e.Loc >= 0 && int(e.Loc) < nt {
			lv = max(lv, finished[e.Loc])
		}
		for _, a := range b.accs {
			lv = max(lv, lastWrite[a.Loc])
			if a.Write {
				lv = max(lv, readsSince[a.Loc])
			}
		}
		lv++
		level[i] = lv
		threadLast[e.Thread] = lv
		if e.Finished {
			finished[e.Thread] = lv
		}
		if e.Kind == engine.EvSpawn {
			threadLast[e.Loc] = lv
		}
		for _, a := range b.accs {
			if a.Write {
				lastWrite[a.Loc], readsSince[a.Loc] = lv, -1
			} else {
				readsSince[a.Loc] = max(readsSince[a.Loc], lv)
			}
		}
	}
	return level
}

// fill sets *s to n copies of v, reusing its array.
func fill(s *[]int, n, v int) []int {
	*s = slices.Grow((*s)[:0], n)[:n]
	for i := range *s {
		(*s)[i] = v
	}
	return *s
}

// eventAccesses appends the shared accesses of an event as dependence
// sees them (locks and unlocks write their mutex) to buf.
func eventAccesses(ev *engine.Event, buf []engine.Access) []engine.Access {
	switch ev.Kind {
	case engine.EvRead:
		return append(buf, engine.Access{Loc: ev.Loc})
	case engine.EvWrite, engine.EvLock, engine.EvUnlock, engine.EvTrylock, engine.EvSignal, engine.EvBroadcast:
		return append(buf, engine.Access{Loc: ev.Loc, Write: true})
	case engine.EvAtomic, engine.EvWait, engine.EvWake:
		return append(buf, ev.Acc...)
	}
	return buf
}

// dependentEvents is the dependence of language.md, computed
// independently of the engine's: same location with a write, same mutex,
// spawn before the child's steps, a thread's last step before its join.
func dependentEvents(f, e *engine.Event, m *engine.Machine) bool {
	if f.Kind == engine.EvSpawn && f.Loc == e.Thread {
		return true
	}
	if e.Kind == engine.EvJoin && e.Loc == f.Thread && f.Finished {
		return true
	}
	type acc struct {
		loc   int32
		write bool
	}
	list := func(ev *engine.Event) []acc {
		switch ev.Kind {
		case engine.EvRead:
			return []acc{{ev.Loc, false}}
		case engine.EvWrite, engine.EvLock, engine.EvUnlock, engine.EvTrylock, engine.EvSignal, engine.EvBroadcast:
			return []acc{{ev.Loc, true}}
		case engine.EvAtomic, engine.EvWait, engine.EvWake:
			var out []acc
			for _, a := range ev.Acc {
				out = append(out, acc{a.Loc, a.Write})
			}
			return out
		}
		return nil
	}
	for _, a := range list(f) {
		for _, b := range list(e) {
			if a.loc == b.loc && (a.write || b.write) {
				return true
			}
		}
	}
	return false
}

// bugKeys summarises the bugs of a result: kind and place.
func bugKeys(res *engine.Result) []string {
	var keys []string
	for _, b := range res.Bugs {
		k := fmt.Sprintf("%s@%s", b.Kind, b.Range)
		if b.Other != nil {
			a, c := b.Range.String(), b.Other.Range.String()
			if c < a {
				a, c = c, a
			}
			k = fmt.Sprintf("%s@%s~%s", b.Kind, a, c)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// dfsBudget is how many interleavings dfsReference may explore for a
// random or hand-written program (WEFT_DFS_BUDGET overrides it, to
// compare larger programs); exampleDFSBudget is the budget for the
// examples, whose dfs references have up to 1.9 million (fig1 on N = 2).
var dfsBudget = envInt("WEFT_DFS_BUDGET", 20_000)

const exampleDFSBudget = 2_000_000

// envInt is the integer value of the environment variable name, or def.
func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

// dfsReference explores prog with dfs, the exhaustive reference, and skips
// the calling test (visibly, with the reason) when prog has more than
// budget interleavings: then there is nothing to compare with.
func dfsReference(t *testing.T, prog *engine.Program, src string, budget int64) outcome {
	t.Helper()
	key := fmt.Sprintf("%d\n%s", budget, src)
	ref, ok := expensiveRefs[key]
	if !ok {
		ref = exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps(prog), MaxExecutions: budget}, true)
		if ref.res.Executions > 100_000 {
			expensiveRefs[key] = ref
		}
	}
	if !ref.res.Complete {
		t.Skipf("not compared with dfs: more than %d interleavings", budget)
	}
	return ref
}

// expensiveRefs keeps the dfs references that took long to compute (some
// examples have millions of interleavings), for the next test that
// compares with them. Tests do not run in parallel here.
var expensiveRefs = map[string]outcome{}

// hitStepBound reports whether some execution of res ran into the step
// bound.
func hitStepBound(res *engine.Result) bool {
	for _, b := range res.Bugs {
		if b.Kind == engine.BugStepBound {
			return true
		}
	}
	return false
}

// checkAgainstDFS checks what a POR mode found (got) against the
// exhaustive reference ref; unfolding says the mode is qpor or optimal.
//
// Without the step bound, every mode finds exactly dfs's bugs, and the
// executions that do not end in a stop are compared trace by trace: such
// an execution contains no stop step, so every POR mode explores exactly
// one execution per Mazurkiewicz trace among them, even when other
// executions stop early (where modes legitimately count differently).
// When dfs hits the step bound, counts mean nothing (the bound cuts
// executions at different places in different modes) and only the bugs
// are compared, by checkBugsUnderStepBound.
func checkAgainstDFS(t *testing.T, name, mode string, prog *engine.Program, src string, ref, got outcome) {
	t.Helper()
	defer checkReproduce(t, name, mode, prog, got.res)
	if hitStepBound(ref.res) {
		checkBugsUnderStepBound(t, name, mode, src, ref.res, got.res)
		return
	}
	if a, b := strings.Join(bugKeys(ref.res), "\n"), strings.Join(bugKeys(got.res), "\n"); a != b {
		t.Errorf("%s: bugs differ\ndfs:\n%s\n%s:\n%s\nprogram:\n%s", name, a, mode, b, src)
	}
	if missing, extra := diffSets(ref.traces, got.traces); len(missing)+len(extra) > 0 {
		t.Errorf("%s: %s's executions that did not stop cover %d traces, dfs's %d: %d missing, %d not dfs's (first missing %q, first extra %q)\n%s",
			name, mode, len(got.traces), len(ref.traces), len(missing), len(extra), first(missing), first(extra), src)
	}
	// An atomic block whose accesses depend on what it reads makes
	// dependence conservative: every trace is still covered, but maybe
	// more than once.
	if !prog.HasUnstableAtomics() && got.nonStopped != int64(len(ref.traces)) {
		t.Errorf("%s: %s explored %d executions that did not stop, want one per trace: %d (dfs: %d such interleavings)\n%s",
			name, mode, got.nonStopped, len(ref.traces), ref.nonStopped, src)
	}
	// A failed assume that some execution reaches is reached in every
	// mode: a stop is dependent with every other step, so no mode can
	// prune all the executions that reach it.
	if (ref.assumeEnded > 0) != (got.assumeEnded > 0) {
		t.Errorf("%s: dfs has %d executions ended by a failed assume, %s %d\n%s", name, ref.assumeEnded, mode, got.assumeEnded, src)
	}
}

// checkBugsUnderStepBound compares bugs when some dfs execution hits the
// step bound (engine/doc.go says what each mode promises then). Every
// mode reports a step-bound bug iff dfs does: where a looping thread is
// cut depends on the mode, so it is compared by kind. The POR modes bound
// each step's causal past rather than whole executions, so they find every
// other bug of dfs and may find more, in executions longer than the bound
// (each must reproduce, checked by checkAgainstDFS).
func checkBugsUnderStepBound(t *testing.T, name, mode string, src string, ref, got *engine.Result) {
	t.Helper()
	for _, e := range stepBoundDiffs(mode, ref, got) {
		t.Errorf("%s: %s\n%s", name, e, src)
	}
}

// stepBoundDiffs is the rule of checkBugsUnderStepBound (also read by
// TestHunt): what breaks it.
func stepBoundDiffs(mode string, ref, got *engine.Result) (errs []string) {
	refKeys, gotKeys := withoutStepBound(bugKeys(ref)), withoutStepBound(bugKeys(got))
	if hitStepBound(got) != hitStepBound(ref) {
		errs = append(errs, fmt.Sprintf("%s reports a step-bound bug: %v, dfs: %v", mode, hitStepBound(got), hitStepBound(ref)))
	}
	if missing, _ := diffSets(keySet(refKeys), keySet(gotKeys)); len(missing) > 0 {
		errs = append(errs, fmt.Sprintf("%s misses dfs's bugs %v (dfs hit the step bound)", mode, missing))
	}
	return errs
}

// keySet is a set of bug keys.
func keySet(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// withoutStepBound drops the step-bound bugs from bug keys.
func withoutStepBound(keys []string) []string {
	out := keys[:0:0]
	for _, k := range keys {
		if !strings.HasPrefix(k, string(engine.BugStepBound)+"@") {
			out = append(out, k)
		}
	}
	return out
}

// checkReproduce checks that every bug of res replays to the same bug.
func checkReproduce(t *testing.T, name, mode string, prog *engine.Program, res *engine.Result) {
	t.Helper()
	for i, b := range res.Bugs {
		if err := engine.Reproduce(prog, b); err != nil {
			t.Errorf("%s: %s bug %d (%s: %s) does not reproduce: %v", name, mode, i+1, b.Kind, b.Message, err)
		}
	}
}

// diffSets returns the sorted keys of want missing from got, and of got
// not in want.
func diffSets(want, got map[string]bool) (missing, extra []string) {
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// compareModes checks sdpor against the exhaustive reference (see
// checkAgainstDFS), skipping visibly when dfs has more than dfsBudget
// interleavings.
func compareModes(t *testing.T, name string, prog *engine.Program, src string) {
	t.Helper()
	compareModesWithin(t, name, prog, src, dfsBudget)
}

func compareModesWithin(t *testing.T, name string, prog *engine.Program, src string, budget int64) {
	t.Helper()
	ref := dfsReference(t, prog, src, budget)
	checkReproduce(t, name, "dfs", prog, ref.res)
	sd := explore(t, prog, engine.SDPOR, true)
	checkAgainstDFS(t, name, "sdpor", prog, src, ref, sd)
	checkCDPOR(t, name, prog, src, engine.Options{}, ref, sd)
}

// checkCDPOR explores prog with CDPOR (opts otherwise) and checks it
// against dfs's reference and sdpor's outcome: the same bugs as dfs
// (under the step bound, checkBugsUnderStepBound's rule), every final
// state of dfs's executions that did not stop reached, and no more such
// executions than sdpor (CDPOR may merge traces, never split them).
func checkCDPOR(t *testing.T, name string, prog *engine.Program, src string, opts engine.Options, ref, sd outcome) *engine.Result {
	t.Helper()
	opts.Algorithm = engine.CDPOR
	if opts.MaxSteps == 0 {
		opts.MaxSteps = maxSteps(prog)
	}
	got := exploreWith(t, prog, opts, true)
	defer checkReproduce(t, name, "cdpor", prog, got.res)
	if hitStepBound(ref.res) {
		checkBugsUnderStepBound(t, name, "cdpor", src, ref.res, got.res)
		return got.res
	}
	// Data races: every pair dfs reports, and maybe more (see
	// clocks.FullRaceWalk), each of which reproduces (checkReproduce).
	split := func(keys []string) (races, others map[string]bool) {
		races, others = map[string]bool{}, map[string]bool{}
		for _, k := range keys {
			if strings.HasPrefix(k, string(engine.BugDataRace)+"@") {
				races[k] = true
			} else {
				others[k] = true
			}
		}
		return races, others
	}
	refRaces, refOthers := split(bugKeys(ref.res))
	gotRaces, gotOthers := split(bugKeys(got.res))
	if missing, extra := diffSets(refOthers, gotOthers); len(missing)+len(extra) > 0 {
		t.Errorf("%s: bugs differ: cdpor misses %v, has more %v\nprogram:\n%s", name, missing, extra, src)
	}
	if missing, _ := diffSets(refRaces, gotRaces); len(missing) > 0 {
		t.Errorf("%s: cdpor misses dfs's data races %v\nprogram:\n%s", name, missing, src)
	}
	if missing, extra := diffSets(ref.finals, got.finals); len(missing)+len(extra) > 0 {
		t.Errorf("%s: cdpor's executions end in %d final states, dfs's in %d: %d missing, %d not dfs's (first missing %q)\n%s",
			name, len(got.finals), len(ref.finals), len(missing), len(extra), first(missing), src)
	}
	if sd.res != nil && sd.res.Complete && got.nonStopped > sd.nonStopped {
		t.Errorf("%s: cdpor explored %d executions that did not stop, sdpor %d\n%s", name, got.nonStopped, sd.nonStopped, src)
	}
	if (ref.assumeEnded > 0) != (got.assumeEnded > 0) {
		t.Errorf("%s: dfs has %d executions ended by a failed assume, cdpor %d\n%s", name, ref.assumeEnded, got.assumeEnded, src)
	}
	return got.res
}

// knownCase is a program with its number of Mazurkiewicz traces (0:
// unknown, compared with dfs only).
type knownCase struct {
	name   string
	src    string
	traces int64
}

const assumeInAtomicSrc = `
var w atomic int = 1
thread A { atomic { assume w == 0 }; assert false }
thread B { w = 0 }
`

// TestAssumeInAtomicBlock: every mode explores the two traces of
// assumeInAtomicSrc, one of them ended by the failed assume.
func TestAssumeInAtomicBlock(t *testing.T) {
	prog := load(t, "assume in atomic", assumeInAtomicSrc)
	for _, algo := range engine.Algorithms {
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			t.Fatal(err)
		}
		if res.Executions != 2 || res.AssumeBlocked != 1 {
			t.Errorf("%s: %d executions, %d ended by assume; want 2 and 1", algo, res.Executions, res.AssumeBlocked)
		}
	}
}

// knownCountCases are the programs whose trace counts are known by hand.
func knownCountCases() []knownCase {
	return []knownCase{
		{"lock counter 2", lockCounterSrc(2), 2},
		{"lock counter 3", lockCounterSrc(3), 6},
		{"lock counter 4", lockCounterSrc(4), 24},
		{"lock counter 5", lockCounterSrc(5), 120},
		{"two reads one write", `
var x atomic int
thread r1 {
    var a int = x
    assert a >= 0
}
thread r2 {
    var a int = x
    assert a >= 0
}
thread w {
    x = 1
}
`, 4},
		{"fig1 N=3", fig1(3), 6},
		{"lock order inversion", `
var m mutex
var n mutex
thread a {
    lock(m)
    lock(n)
    unlock(n)
    unlock(m)
}
thread b {
    lock(n)
    lock(m)
    unlock(m)
    unlock(n)
}
`, 3},
		{"fig1 N=5", fig1(5), 10},
		{"atomic increments", `
var x int
thread t[i in 0..3] {
    atomic {
        x = x + 1
    }
}
`, 6},
		{"spawn and join", `
var x int
var m mutex
proc w(v int) {
    lock(m)
    x = x + v
    unlock(m)
}
thread main {
    var a tid = spawn w(1)
    var b tid = spawn w(2)
    join a
    join b
    assert x == 3
}
`, 2},
		// Two stops in independent threads: an execution ends at the
		// first, whichever it is (AssumeBlocked counts those ending in a
		// failed assume).
		// The unfolding modes once ran A's failed block again at the end
		// of the configuration, after B's write: it passed, and the
		// execution counted as not ended by assume.
		{"failed assume in an atomic block", assumeInAtomicSrc, 0},
		// The N-th step is a stop: no step-bound bug (DFS reports none).
		{"a stop as the last step within the bound", `// max-steps: 3
var x int
thread t {
    x = 1
    x = 2
    assert false
}
`, 0},
		// Independent stops: each ends an execution of its own (counting
		// only the first in C's order lost the failed assume).
		{"independent assert and assume", `
thread A {
    var l int = 1
    assert l == 2, "A fails"
}

thread B {
    var l int = 1
    assume l == 2
}
`, 0},
		{"failed assume beside a failed assertion", `
var x atomic int
thread a {
    x = 1
    var l int = 0
    assume l == 1
}
thread b {
    var l int = x
    assert l == 0
}
`, 0},
		{"failed assumes and an assertion", `
var x atomic int
var y atomic int
thread a {
    x = 1
    var l int = y
    assume l == 1
}
thread b {
    y = 1
    var l int = x
    assume l == 0
}
thread c {
    var l int = x
    assert l != 1 || y == 0
}
`, 0},
		{"readers and writers", `
var x int
var y int
thread w1 {
    x = 1
    y = 1
}
thread w2 {
    y = 2
    x = 2
}
thread r {
    var a int = x
    var b int = y
}
`, 0},
	}
}

func TestKnownCounts(t *testing.T) {
	for _, tc := range knownCountCases() {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			o := explore(t, prog, engine.SDPOR, false)
			if !o.res.Complete {
				t.Fatalf("incomplete")
			}
			for _, b := range o.res.Bugs {
				if b.Kind != engine.BugDeadlock && tc.traces > 0 {
					t.Fatalf("unexpected bug %s: %s", b.Kind, b.Message)
				}
			}
			if tc.traces > 0 && o.res.Executions != tc.traces {
				t.Errorf("sdpor: %d executions, want %d traces", o.res.Executions, tc.traces)
			}
			compareModes(t, tc.name, prog, tc.src)
		})
	}
}

func fig1(n int) string {
	return fmt.Sprintf(`
const N = %d
var x [N]int
var c int
var mc mutex
var mx [N]mutex
thread writer[w in 0..N] {
    lock(mx[w])
    x[w] = 7
    unlock(mx[w])
}
thread count {
    for j in 1..N {
        lock(mc)
        c = c + 1
        unlock(mc)
    }
}
thread master {
    var i int
    lock(mc)
    i = c
    unlock(mc)
    lock(mx[i])
    x[i] = 0
    assert x[i] == 0, "master's write survives"
    unlock(mx[i])
}
`, n)
}

func TestBugKinds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []engine.BugKind
	}{
		{"philosophers deadlock", `
var fork [3]mutex
thread phil[i in 0..3] {
    lock(fork[i])
    lock(fork[(i + 1) % 3])
    unlock(fork[(i + 1) % 3])
    unlock(fork[i])
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"lost update", `
var c int
thread t[i in 0..2] {
    c = c + 1
}
thread check {
    join t[0]
    join t[1]
    assert c == 2, "lost update"
}
`, []engine.BugKind{engine.BugAssertion, engine.BugDataRace}},
		{"division by zero", `
var d int = 1
thread a {
    atomic {
        d = d - 1
    }
}
thread b {
    var x int
    atomic {
        x = 10 / d
    }
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"unlock not held", `
var m mutex
thread a {
    unlock(m)
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"relock", `
var m mutex
thread a {
    lock(m)
    lock(m)
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"index out of range", `
var x [2]int
var i int
thread a {
    i = 2
}
thread b {
    var k int = i
    x[k] = 1
}
`, []engine.BugKind{engine.BugDataRace, engine.BugRuntimeError}},
		{"overflow", `
var x int = 9223372036854775807
thread a {
    x = x + 1
}
`, []engine.BugKind{engine.BugRuntimeError}},
		{"step bound", `
var x int
thread a {
    while true {
        x = 1
    }
}
`, []engine.BugKind{engine.BugStepBound}},
		{"spin until set", `// max-steps: 500
var x int
thread spinner {
    while x == 0 {
    }
}
thread setter {
    x = 1
}
`, []engine.BugKind{engine.BugDataRace}},
		{"spin counting its rounds", `// max-steps: 500
var x int
thread spinner {
    var n int
    while x == 0 {
        n++
    }
    assert n >= 0
}
thread setter {
    x = 1
}
`, []engine.BugKind{engine.BugDataRace, engine.BugStepBound}},
		{"local infinite loop", `
thread a {
    var i int
    while true {
        i = 1 - i
    }
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"local loop that never ends", `
thread a {
    var i int
    while i >= 0 {
        i = 1 - i
    }
}
`, []engine.BugKind{engine.BugStepBound}},
		{"join self deadlock", `
thread a {
    join a
}
`, []engine.BugKind{engine.BugDeadlock}},
		{"assume is not a bug", `
var x atomic int
thread a {
    x = 1
}
thread b {
    assume x == 1
}
`, nil},
		{"atomic accesses do not race", `
var x int
thread a {
    atomic {
        x = 1
    }
}
thread b {
    atomic {
        x = 2
    }
}
`, nil},
		{"atomic variables do not race", `
var x atomic int
thread a {
    x = 1
}
thread b {
    x = 2
}
`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			for _, algo := range engine.Algorithms {
				res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxSteps: 500, LocalBudget: 1_000_000})
				if err != nil {
					t.Fatal(err)
				}
				kinds := map[engine.BugKind]bool{}
				for _, b := range res.Bugs {
					kinds[b.Kind] = true
					if err := engine.Reproduce(prog, b); err != nil {
						t.Errorf("%s: %s bug does not reproduce: %v", algo, b.Kind, err)
					}
				}
				var got []engine.BugKind
				for k := range kinds {
					got = append(got, k)
				}
				sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Errorf("%s: bug kinds %v, want %v", algo, got, tc.want)
				}
			}
		})
	}
}

// TestExamples checks every example in sdpor against dfs.
func TestExamples(t *testing.T) {
	forEachExample(t, func(t *testing.T, name string, prog *engine.Program, src string) {
		compareModesWithin(t, name, prog, src, exampleDFSBudget)
	})
}

// TestRandomPrograms is the property-based test: random small programs,
// where sdpor must agree with dfs as checkAgainstDFS says.
func TestRandomPrograms(t *testing.T) { forEachRandomProgram(t, 300, 60, compareModes) }

// TestSpinPrograms: random programs in which a thread spins on a flag
// that another sets after steps of its own (plain, atomic, or under a
// mutex), every mode against dfs. Some schedules spin until the step
// bound, so bugs are compared (checkBugsUnderStepBound), not counts: the
// unfolding modes once missed every bug behind such a wait.
func TestSpinPrograms(t *testing.T) {
	forEachProgram(t, 150, 40, spinProgram, func(t *testing.T, name string, prog *engine.Program, src string) {
		compareModes(t, name, prog, src)
		compareQPOR(t, name, prog, src)
	})
}

// smallerInstances gives, for an example with too many interleavings for
// dfs, a smaller instance of the same model to compare the modes on: the
// example's text with one line changed. (examples_test.go checks the
// examples themselves in every mode, and in dfs where it can.)
var smallerInstances = map[string]struct{ old, new, why string }{
	"fig1.weft": {"const N = 3", "const N = 2", "N = 3 has over 30 million interleavings"},
}

// forEachExample runs check on every model of ../examples, each in a
// subtest.
func forEachExample(t *testing.T, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	files, _ := filepath.Glob("../examples/*.weft")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			src := string(text)
			if inst, ok := smallerInstances[filepath.Base(f)]; ok {
				if !strings.Contains(src, inst.old+"\n") {
					t.Fatalf("%s no longer has the line %q to make a smaller instance", f, inst.old)
				}
				src = strings.Replace(src, inst.old+"\n", inst.new+"\n", 1)
				t.Logf("compared on a smaller instance, %s: %s", inst.new, inst.why)
			}
			check(t, f, load(t, f, src), src)
		})
	}
}

// forEachRandomProgram runs check on n seeded random programs (short in
// -short mode; WEFT_RANDOM_PROGRAMS overrides).
func forEachRandomProgram(t *testing.T, n, short int, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	forEachProgram(t, n, short, randomProgram, check)
}

// maxSkippedPercent is the share of seeds a random-program test may fail
// to compare (their check skipped, dfs having too many interleavings)
// before the test fails: a test that silently compares nothing proves
// nothing.
const maxSkippedPercent = 2

// maxFailingSeeds: after this many failing seeds, the rest are not run
// (one seed's report is usually enough, a few show a pattern).
const maxFailingSeeds = 5

// forEachProgram is forEachRandomProgram with another generator. Each
// seed is a subtest ("seed_17"), so that its skip or failure is visible
// and it can be run alone with -run 'Test…/seed_17$'.
// drawComparable draws programs from gen until one has at most dfsBudget
// interleavings (a DFS without trace bookkeeping tells), so that every
// seed compares with DFS; after maxDraws it returns the last one, which
// the comparison then skips visibly. It returns the program and the
// number of draws.
func drawComparable(t *testing.T, r *rand.Rand, gen func(*rand.Rand) string) (string, int) {
	const maxDraws = 50
	for draw := 1; ; draw++ {
		src := gen(r)
		prog := load(t, "candidate", src)
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps(prog), MaxExecutions: dfsBudget})
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete || draw == maxDraws {
			return src, draw
		}
	}
}

func forEachProgram(t *testing.T, n, short int, gen func(*rand.Rand) string, check func(t *testing.T, name string, prog *engine.Program, src string)) {
	if testing.Short() {
		n = short
	}
	if v, err := strconv.Atoi(os.Getenv("WEFT_RANDOM_PROGRAMS")); err == nil {
		n = v
	}
	ran, skipped, failed, redrawn := 0, 0, 0, 0
	for seed := int64(1); seed <= int64(n) && failed < maxFailingSeeds; seed++ {
		src, draws := drawComparable(t, rand.New(rand.NewSource(seed)), gen)
		redrawn += draws - 1
		name := fmt.Sprintf("seed %d", seed)
		ran++
		ok := t.Run(name, func(t *testing.T) {
			defer func() {
				if t.Skipped() {
					skipped++
				}
			}()
			check(t, name, load(t, name, src), src)
		})
		if !ok {
			failed++
		}
	}
	if failed == maxFailingSeeds && ran < n {
		t.Errorf("stopped after %d failing seeds; %d of %d seeds not run", failed, n-ran, n)
	}
	t.Logf("%d seeds run: %d compared, %d skipped (not comparable), %d failed; %d programs drawn again for having more than %d interleavings",
		ran, ran-skipped, skipped, failed, redrawn, dfsBudget)
	if skipped*100 > ran*maxSkippedPercent {
		t.Errorf("%d of %d seeds (%.1f%%) could not be compared, more than %d%%: the test checks too little",
			skipped, ran, 100*float64(skipped)/float64(ran), maxSkippedPercent)
	}
}

// TestCancellation: an exploration returns promptly when its context ends,
// says it is incomplete and why, and reports progress meanwhile. How fast
// it returns is measured by BenchmarkCancellationLatency, not asserted: on
// a shared machine a deadline in a test fails for reasons that are not
// bugs.
func TestCancellation(t *testing.T) {
	prog := load(t, "lock counter 12", lockCounterSrc(12)) // 12! executions: far more than fit in the test
	// Cancel at the first progress report; the budget only ends the test
	// if progress is never reported.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := 0
	res, err := engine.Explore(ctx, prog, engine.Options{
		MaxExecutions:    1_000_000,
		ProgressInterval: time.Millisecond,
		OnProgress: func(engine.Stats) {
			progress++
			cancel()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if progress == 0 {
		t.Errorf("no progress reported in %d executions", res.Executions)
	}
	if res.Complete || res.Stopped != "cancelled" {
		t.Errorf("complete=%v stopped=%q, want incomplete, cancelled", res.Complete, res.Stopped)
	}

	// A deadline is reported as a timeout.
	tctx, tcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer tcancel()
	res, err = engine.Explore(tctx, prog, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || res.Stopped != "timeout" {
		t.Errorf("complete=%v stopped=%q, want incomplete, timeout", res.Complete, res.Stopped)
	}
}

// TestBugsStream: OnBug sees each bug once, as it is found, before Explore
// returns.
func TestBugsStream(t *testing.T) {
	prog := load(t, "racy", `
var c int
thread t[i in 0..3] {
    c = c + 1
}
`)
	var streamed []*engine.Bug
	res, err := engine.Explore(context.Background(), prog, engine.Options{OnBug: func(b *engine.Bug) { streamed = append(streamed, b) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(streamed) == 0 || len(streamed) != len(res.Bugs) {
		t.Fatalf("streamed %d bugs, result has %d", len(streamed), len(res.Bugs))
	}
	for i := range streamed {
		if streamed[i].Kind != res.Bugs[i].Kind || streamed[i].Range != res.Bugs[i].Range {
			t.Errorf("bug %d differs", i)
		}
		if len(res.Bugs[i].Schedule) > len(streamed[i].Schedule) {
			t.Errorf("bug %d: the result's trace is longer than the first one found", i)
		}
	}
}

// TestMaxBugs: every mode stops at the N-th distinct bug, incomplete, with
// exactly N bugs, and a budget above the number of bugs changes nothing.
func TestMaxBugs(t *testing.T) {
	prog := load(t, "three bugs", `
var c int
var m mutex
thread a {
    lock(m)
    c = c + 1
    assert c != 1, "a first"
    unlock(m)
}
thread b {
    lock(m)
    c = c + 2
    assert c != 2, "b first"
    unlock(m)
}
thread d {
    lock(m)
    assert c != 0, "d first"
    unlock(m)
}
`)
	for _, algo := range engine.Algorithms {
		full, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo})
		if err != nil {
			t.Fatal(err)
		}
		if !full.Complete || len(full.Bugs) != 3 {
			t.Fatalf("%s: complete=%v with %d bugs, want a complete run with 3", algo, full.Complete, len(full.Bugs))
		}
		for _, n := range []int{1, 2} {
			res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxBugs: n})
			if err != nil {
				t.Fatal(err)
			}
			if res.Complete || res.Stopped != engine.StoppedMaxBugs || len(res.Bugs) != n {
				t.Errorf("%s, max %d bugs: complete=%v stopped=%q with %d bugs", algo, n, res.Complete, res.Stopped, len(res.Bugs))
			}
		}
		res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, MaxBugs: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Complete || len(res.Bugs) != 3 || res.Executions != full.Executions {
			t.Errorf("%s, max 4 bugs: complete=%v, %d bugs, %d executions; want as without: %d executions", algo, res.Complete, len(res.Bugs), res.Executions, full.Executions)
		}
	}
}

// TestFoataLevels: the linear-time Foata levels that the dfs references
// use agree with the definition on every execution of the examples (the
// first few thousand of each) and of random programs.
func TestFoataLevels(t *testing.T) {
	check := func(t *testing.T, name string, prog *engine.Program, src string) {
		n := 0
		_, err := engine.Explore(context.Background(), prog, engine.Options{
			Algorithm:     engine.DFS,
			MaxSteps:      2000,
			MaxExecutions: 5000,
			OnExecution: func(events []engine.Event, m *engine.Machine) {
				want, got := foataLevelsByDefinition(events, m), foataLevels(events, m)
				if fmt.Sprint(want) != fmt.Sprint(got) && n < 3 {
					n++
					t.Errorf("%s: Foata levels %v, want %v\n%s", name, got, want, src)
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Run("examples", func(t *testing.T) { forEachExample(t, check) })
	t.Run("random", func(t *testing.T) { forEachRandomProgram(t, 100, 20, check) })
}

// TestStepBoundPrograms: programs some of whose executions run into the
// step bound, where modes are compared on their bugs only
// (checkBugsUnderStepBound).
func TestStepBoundPrograms(t *testing.T) {
	tests := []struct{ name, src string }{
		{"spin until set", `// max-steps: 500
var x int
thread spinner {
    var spins int
    while x == 0 {
        spins++
    }
    assert spins >= 0
}
thread setter {
    x = 1
}
`},
		// The unfolding modes once cut the execution at the bound: the
		// consumer spun to it before the producer moved, the producer's
		// second step was never discovered, and the assertion (or, with
		// a plain data, the race) was never found.
		{"spin on an atomic flag set after a second step", `// max-steps: 40
var flag atomic int
var data atomic int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var spins int
    while flag == 0 {
        spins++
    }
    assert spins >= 0
    assert data != 42, "the consumer saw the data"
}
`},
		{"spin on an atomic flag, plain data", `// max-steps: 40
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var spins int
    while flag == 0 {
        spins++
    }
    assert spins >= 0
    assert data != 42, "the consumer saw the data"
}
`},
		{"spin until a locked counter reaches two", `// max-steps: 30
var c int
var m mutex

thread inc[i in 0..2] {
    lock(m)
    c = c + 1
    unlock(m)
}

thread waiter {
    var v int
    while v < 2 {
        lock(m)
        v = c
        unlock(m)
    }
    assert false, "both increments seen"
}
`},
		{"retry loop", `// max-steps: 30
var x atomic int
var turn atomic int

thread a {
    x = 1
    x = 2
    turn = 1
}

thread b {
    var r int
    var spins int
    while turn != 1 {
        r = x
        spins++
    }
    assert spins >= 0
    assert r != 1, "b saw the intermediate value"
}
`},
		// The review of the causal-past bound found these: an event
		// beyond the bound dropped with no step-bound report, the run
		// then "verified" (with or without a stop elsewhere); two long
		// independent threads that never cut each other; a coarse tail
		// counted in the past of another thread's event, hiding its
		// assertion three steps in.
		{"a read whose past reaches the bound", `// max-steps: 11
var a atomic int
var b atomic int
var x atomic int

thread A {
    for i in 0..5 {
        a = i
    }
    x = 1
}

thread B {
    for i in 0..5 {
        b = i
    }
    assert x == 0, "B saw A's write"
}
`},
		{"a read whose past reaches the bound, beside an assume", `// max-steps: 11
var a atomic int
var b atomic int
var x atomic int

thread A {
    for i in 0..5 {
        a = i
    }
    x = 1
}

thread Z {
    assume false
}

thread B {
    for i in 0..5 {
        b = i
    }
    assert x == 0, "B saw A's write"
}
`},
		{"two independent threads longer than the bound together", `// max-steps: 11
var a atomic int
var b atomic int

thread A {
    for i in 0..6 {
        a = i
    }
}

thread B {
    for i in 0..6 {
        b = i
    }
}
`},
		{"a tail beside a short thread", `// max-steps: 4
var y atomic int
var x int

thread t0 {
    y = 1
    x = 1
    x = 2
}

thread t1 {
    var r int = y
    assert r == 0, "t1 saw y"
}
`},
		// From the review of SDPOR's causal-past bound: every thread of a
		// node cut one after the other (b's lock must still race with
		// x's).
		{"threads cut one after the other beside a blocked lock", `// max-steps: 6
var w atomic int
var m mutex

thread x {
    lock(m)
    while true {
        w = 1
    }
}

thread b {
    lock(m)
    assert false, "b got m"
}

thread y {
    while true {
        if w == 7 {
            break
        }
    }
}
`},
		{"a failure beside a loop", `
var x atomic int
thread looper {
    while true {
        x = 1
    }
}
thread checker {
    var l int = 1
    assert l == 2, "fails whenever checker runs"
}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			if ref := dfsReference(t, prog, tc.src, dfsBudget); !hitStepBound(ref.res) {
				t.Fatalf("dfs does not hit the step bound: bugs %v", bugKeys(ref.res))
			}
			t.Run("sdpor", func(t *testing.T) { compareModes(t, tc.name, prog, tc.src) })
			t.Run("unfolding", func(t *testing.T) { compareQPOR(t, tc.name, prog, tc.src) })
		})
	}
}
