package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"weft/engine"
	"weft/engine/interp"
)

// The tests that decide whether the stateful exploration is sound.
//
// On programs whose executions all end, every stateful variant must find
// exactly the bugs dfs finds and complete where dfs completes
// (stateful_dfs_test.go for the examples and the generators,
// TestStatefulKnownCounts here), and store the same states with exact
// states as with fingerprints (TestStatefulExactStates). StatefulNone,
// which explores every
// enabled step of every state, must store exactly the states a
// from-scratch breadth-first enumeration reaches (TestStatefulStates;
// enumerateStates says what a state is). gen_cyclic_test.go checks the
// programs that loop forever, where dfs has no verdict to compare with.

// statefulVariant is one configuration of the stateful mode.
type statefulVariant struct {
	name string
	opts engine.StatefulOptions
	// facts gives the exploration the static facts weft check gives it
	// (statefulFacts: invisible steps, race-free words).
	facts bool
}

// statefulVariants are the configurations the tests run: StatefulNone
// without static facts first (the reference), then with exact states,
// then every reduction as weft check runs it, with the static facts
// (WEFT_LONG=1: each with exact states too).
func statefulVariants() []statefulVariant {
	vs := []statefulVariant{
		{"none", engine.StatefulOptions{POR: engine.StatefulNone}, false},
		{"none-exact", engine.StatefulOptions{POR: engine.StatefulNone, ExactStates: true}, false},
	}
	for _, por := range engine.StatefulPORs() {
		vs = append(vs, statefulVariant{string(por) + "+facts", engine.StatefulOptions{POR: por}, true})
		if longRun() {
			vs = append(vs, statefulVariant{string(por) + "-exact+facts", engine.StatefulOptions{POR: por, ExactStates: true}, true})
		}
	}
	return vs
}

// statefulMerged caches whether Explore knows the stateful mode.
var statefulMerged = sync.OnceValue(func() error {
	prog, ok := tryLoad("var x int\nthread t {\n    x = 1\n}\n")
	if !ok {
		return errors.New("the probe program does not load")
	}
	_, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.Stateful})
	return err
})

// exactStates caches whether Explore takes Options.Stateful.ExactStates.
var exactStates = sync.OnceValue(func() error {
	prog, ok := tryLoad("var x int\nthread t {\n    x = 1\n}\n")
	if !ok {
		return errors.New("the probe program does not load")
	}
	_, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.Stateful,
		Stateful: engine.StatefulOptions{POR: engine.StatefulNone, ExactStates: true}})
	return err
})

// requireStateful skips the calling test, saying why, while Explore does
// not know the stateful mode yet.
func requireStateful(t *testing.T) {
	t.Helper()
	if err := statefulMerged(); err != nil {
		t.Skipf("the stateful mode is not there to test: %v", err)
	}
}

// exploreStateful explores prog (whose text is src) in variant v with
// the step bound maxSteps, skipping the calling test visibly if the mode
// refuses the program.
func exploreStateful(t *testing.T, prog *engine.Program, src string, v statefulVariant, maxSteps int) *engine.Result {
	t.Helper()
	requireStateful(t)
	skipUnavailable(t, v)
	opts := engine.Options{Algorithm: engine.Stateful, MaxSteps: maxSteps, Stateful: v.opts}
	if v.facts {
		opts.Stateful.Invisible, opts.Stateful.RaceFree = statefulFacts(t, "facts", src, prog)
	}
	res, err := engine.Explore(context.Background(), prog, opts)
	var unsupported *engine.UnsupportedError
	if errors.As(err, &unsupported) {
		t.Skipf("stateful %s refuses the program: %v", v.name, err)
	}
	if err != nil {
		t.Fatalf("stateful %s: %v", v.name, err)
	}
	checkStatefulCounts(t, v, res)
	return res
}

// skipUnavailable skips the calling test, saying why, if variant v asks
// for exact states and Explore does not store them yet.
func skipUnavailable(t *testing.T, v statefulVariant) {
	t.Helper()
	if err := exactStates(); v.opts.ExactStates && err != nil {
		t.Skipf("stateful %s not compared: %v", v.name, err)
	}
}

// checkStatefulCounts checks what any result of the stateful mode must
// say of itself.
func checkStatefulCounts(t *testing.T, v statefulVariant, res *engine.Result) {
	t.Helper()
	if res.Algorithm != engine.Stateful {
		t.Errorf("stateful %s: the result says algorithm %q", v.name, res.Algorithm)
	}
	if res.Complete && res.States < 1 {
		t.Errorf("stateful %s: complete with %d states stored (the initial state at least)", v.name, res.States)
	}
	if res.Matched > res.Transitions {
		t.Errorf("stateful %s: %d matched states, more than the %d transitions", v.name, res.Matched, res.Transitions)
	}
	switch {
	case v.opts.ExactStates && res.MissProbability != 0:
		t.Errorf("stateful %s: exact states, yet a miss probability of %g", v.name, res.MissProbability)
	case res.MissProbability < 0 || res.MissProbability > 1e-9:
		t.Errorf("stateful %s: miss probability %g for %d states: a test model should not be near a collision", v.name, res.MissProbability, res.States)
	}
	if res.Complete && res.Stopped != engine.NotStopped {
		t.Errorf("stateful %s: complete, yet stopped: %s", v.name, res.Stopped)
	}
}

// checkStatefulAgainstDFS checks result got of variant v against dfs's
// reference ref on a program whose executions all end: the same bugs
// (bugKeys: data races too, pair for pair), complete when dfs is, and
// every bug reproduces. Where dfs
// reaches the step bound, its other bugs must all be found (a stateful
// exploration that meets a state again does not run to the bound, so it
// may find bugs beyond it, or report no step-bound bug; each bug it
// reports must still reproduce).
func checkStatefulAgainstDFS(t *testing.T, name string, v statefulVariant, prog *engine.Program, src string, ref outcome, got *engine.Result) {
	t.Helper()
	mode := "stateful " + v.name
	checkReproduce(t, name, mode, prog, got)
	if ref.res.Complete && !got.Complete {
		t.Errorf("%s: %s incomplete (stopped: %s) where dfs completes\n%s", name, mode, got.Stopped, src)
	}
	if hitStepBound(ref.res) {
		refKeys := withoutStepBound(bugKeys(ref.res))
		if missing, _ := diffSets(keySet(refKeys), keySet(bugKeys(got))); len(missing) > 0 {
			t.Errorf("%s: %s misses dfs's bugs %v (dfs hit the step bound)\n%s", name, mode, missing, src)
		}
		return
	}
	if a, b := strings.Join(bugKeys(ref.res), "\n"), strings.Join(bugKeys(got), "\n"); a != b {
		t.Errorf("%s: bugs differ\ndfs:\n%s\n%s:\n%s\nprogram:\n%s", name, a, mode, b, src)
	}
}

// compareStatefulVariants checks every stateful variant against dfs on prog
// (dfs with at most budget interleavings, else the test is skipped),
// each variant in a subtest of its own.
func compareStatefulVariants(t *testing.T, name string, prog *engine.Program, src string, budget int64) {
	t.Helper()
	requireStateful(t)
	ref := dfsReference(t, prog, src, budget)
	for _, v := range statefulVariants() {
		t.Run(v.name, func(t *testing.T) {
			got := exploreStateful(t, prog, src, v, maxSteps(prog))
			checkStatefulAgainstDFS(t, name, v, prog, src, ref, got)
		})
	}
}

// TestStatefulKnownCounts: the programs of TestKnownCounts, every
// stateful variant against dfs. (The examples and the random, spin and
// version 2 generators are compared in stateful_dfs_test.go.)
func TestStatefulKnownCounts(t *testing.T) {
	requireStateful(t)
	for _, tc := range knownCountCases() {
		t.Run(tc.name, func(t *testing.T) {
			compareStatefulVariants(t, tc.name, load(t, tc.name, tc.src), tc.src, dfsBudget)
		})
	}
}

// statefulRegressions are the smallest programs on which a stateful
// reduction once missed a bug that none and dfs find (the mode's first
// version, before 0eac9a2): a stop step (a failed assertion or assume)
// ended the execution, so the threads it disabled were never explored
// first (the cyclic one is the shrunk TestStatefulCyclic seed 2); and
// DE-S-POR reversed a lock's race only with the last dependent step, the
// unlock before it, where the lock could not move, so the lock–lock
// race was lost (verified every interleaving of m1 and of the lost
// wake-up).
var statefulRegressions = []knownCase{
	{"lock after an unlock", `
var m mutex
var x int
thread a {
    lock(m)
    x = 1
    unlock(m)
}
thread b {
    lock(m)
    var l int = x
    unlock(m)
    assert l == 1
}
`, 0},
	{"signal before the wait", `
var m mutex
var cv cond
thread waiter {
    lock(m)
    wait(cv, m)
    unlock(m)
}
thread notifier {
    lock(m)
    signal(cv)
    unlock(m)
}
`, 0},
	{"a stop beside a CAS loop", `
const N = 3
var c atomic int
var cs atomic int
thread t0 {
    var l int
    var ok bool
    while true {
        while !ok {
            atomic {
                if c == l {
                    c = (l + 1) % N
                    ok = true
                }
            }
        }
        assert c != 1
    }
}
thread t1 {
    while true {
        assert cs == 1, "mutual exclusion"
    }
}
`, 0},
	{"an invisible step that stops", `
var m mutex
var f atomic int
thread a {
    var l int = f
    assert l == 1
}
thread b {
    unlock(m)
}
`, 0},
}

// TestStatefulRegressions: every variant finds the bugs none finds on
// statefulRegressions, and dfs's where dfs reaches no step bound.
func TestStatefulRegressions(t *testing.T) {
	requireStateful(t)
	for _, tc := range statefulRegressions {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			var none *engine.Result
			for _, v := range statefulVariants() {
				t.Run(v.name, func(t *testing.T) {
					res := exploreStateful(t, prog, tc.src, v, cyclicMaxSteps)
					checkReproduce(t, tc.name, "stateful "+v.name, prog, res)
					if none == nil {
						none = res
						ref := dfsReference(t, prog, tc.src, dfsBudget)
						if !hitStepBound(ref.res) {
							checkStatefulAgainstDFS(t, tc.name, v, prog, tc.src, ref, res)
						}
						return
					}
					diffs := cyclicVariantDiffs(v, none, res)
					for _, e := range diffs {
						t.Errorf("%s: %s\n%s", tc.name, e, tc.src)
					}
				})
			}
		})
	}
}

// TestStatefulExactStates: on the examples and the random generator's
// programs, every reduction with exact states stores the same states,
// takes the same steps and finds the same bugs as with fingerprints
// (on these sizes no two states share a 128-bit fingerprint), and says
// its miss probability is 0.
func TestStatefulExactStates(t *testing.T) {
	requireStateful(t)
	if err := exactStates(); err != nil {
		t.Skipf("exact states not compared: %v", err)
	}
	check := func(t *testing.T, name string, prog *engine.Program, src string) {
		for _, por := range engine.StatefulPORs() {
			hashed := exploreStateful(t, prog, src, statefulVariant{string(por), engine.StatefulOptions{POR: por}, false}, maxSteps(prog))
			exact := exploreStateful(t, prog, src, statefulVariant{string(por) + "-exact", engine.StatefulOptions{POR: por, ExactStates: true}, false}, maxSteps(prog))
			if hashed.States != exact.States || hashed.Transitions != exact.Transitions || hashed.Matched != exact.Matched || hashed.Complete != exact.Complete {
				t.Errorf("%s: stateful %s: %d states, %d transitions, %d matched, complete %v; with exact states %d, %d, %d, %v\n%s",
					name, por, hashed.States, hashed.Transitions, hashed.Matched, hashed.Complete, exact.States, exact.Transitions, exact.Matched, exact.Complete, src)
			}
			if a, b := strings.Join(bugKeys(hashed), " "), strings.Join(bugKeys(exact), " "); a != b {
				t.Errorf("%s: stateful %s: bugs [%s], with exact states [%s]\n%s", name, por, a, b, src)
			}
		}
	}
	t.Run("examples", func(t *testing.T) { forEachExample(t, check) })
	t.Run("random", func(t *testing.T) { forEachRandomProgram(t, check) })
}

// A from-scratch enumeration of the reachable states.

// What a state is. The stateful mode stores the states of the machine
// between two visible steps, each step a single shared access (fine
// steps: the machine the stateful mode runs is never coarse), as
// interp's state fingerprint sees them ("State fingerprint" in package
// interp: shared memory, each thread's position, status and live
// locals, the live records of spin detection; not the history such as
// step counts). The states reached are the initial state and every
// state a step that does not stop the execution leads to, from a state
// reached, taking every enabled thread and every alternative of its step
// (each value of a choose, each waiter a signal may wake). A step that
// stops the execution (an assertion failure, a runtime error, a failed
// assume) leads to no state: it is a bug, or a dropped execution, and
// the search goes back.
//
// The mode's key of a state adds to the machine's state the accesses to
// plain (non-atomic) locations that some live thread is not yet ordered
// after (clocks.PendingRaces), which decide the data races the future
// can still show: so on a program with plain locations it may store one
// machine state several times, with different pending accesses. On a
// program whose every location is atomic (or a mutex, or a condition
// variable) nothing is ever pending, and StatefulNone's states are
// exactly the machine states the enumeration reaches; on the others it
// stores at least as many (atomicVersion makes the first kind from the
// second).

// schedStep is one step of a path: the thread and its alternative.
type schedStep struct{ t, alt int32 }

// stateSpace is what enumerateStates found.
type stateSpace struct {
	states int // distinct states reached, the initial one included
	// transitions counts the steps from a state that do not stop (each
	// to a state, new or not), stops the steps that stop.
	transitions, stops int
	// bugs holds the keys (as bugKeys makes them) of the assertion
	// failures, runtime errors and deadlocks some reached state leads to:
	// every bug but data races, which need happens-before. It is a set:
	// bugKeys lists a key once per bug, and deadlocks of different
	// blocked positions may share the first thread's place.
	bugs map[string]bool
	// depth is the most steps from the initial state to a state, on a
	// shortest path (the depth of the breadth-first search).
	depth int
}

// errTooManyStates is enumerateStates' error past its limit.
var errTooManyStates = errors.New("too many states")

// enumerateStates enumerates the states prog reaches (see "What a state
// is") breadth-first, independently of any exploration mode: each state
// is rebuilt by replaying its shortest path from the initial state, and
// identified by the fingerprint computed from scratch
// (Machine.RecomputeFingerprint, not the machine's incremental one); the
// exact encodings (Machine.AppendState) must tell exactly as many states
// apart, else it returns an error. A thread that would spin alone on its
// next step, on atomic variables and mutexes only (waitsAlone), does not
// move in a state; where no thread moves, such threads make that step
// before the deadlock is judged. It gives up with
// errTooManyStates past limit states.
func enumerateStates(prog *engine.Program, limit int) (stateSpace, error) {
	// Config.Fingerprint only lets RecomputeFingerprint reuse the
	// machine's tables (the liveness of every body); the key is
	// computed from scratch all the same.
	m, err := interp.NewMachineConfig(prog, interp.Config{Fingerprint: true})
	if err != nil {
		return stateSpace{}, fmt.Errorf("the initial state: %w", err)
	}
	// Iterations on atomic variables and mutexes that change nothing
	// start over (interp's "Looping again").
	allowed := make([]bool, len(prog.Locations))
	for loc, l := range prog.Locations {
		allowed[loc] = l.Atomic || l.Mutex
	}
	if err := m.SetLoopAgain(allowed); err != nil {
		return stateSpace{}, err
	}
	type node struct {
		parent int32
		step   schedStep
		depth  int32
	}
	nodes := []node{{parent: -1}}
	seen := map[interp.Fingerprint]int32{m.RecomputeFingerprint(): 0}
	// Each state's exact encoding too: two states must have the same
	// fingerprint iff they have the same encoding (a 128-bit collision
	// among a few thousand states would be a defect of the hash, not
	// chance).
	var enc []byte
	exact := map[string]interp.Fingerprint{string(m.AppendState(enc[:0])): m.RecomputeFingerprint()}
	sp := stateSpace{bugs: map[string]bool{}}
	var path []schedStep
	var ev engine.Event
	var waiters, movers []int
	for i := 0; i < len(nodes); i++ {
		// Rebuild state i.
		m.UndoTo(0)
		path = path[:0]
		for j := int32(i); nodes[j].parent >= 0; j = nodes[j].parent {
			path = append(path, nodes[j].step)
		}
		for k := len(path) - 1; k >= 0; k-- {
			if !m.StepAlt(int(path[k].t), int(path[k].alt), &ev) {
				return sp, fmt.Errorf("replaying state %d: step %d (thread %d) stopped: %s", i, len(path)-k, path[k].t, ev.Message)
			}
		}
		sp.depth = max(sp.depth, int(nodes[i].depth))
		moved := false
		waiters, movers = waiters[:0], movers[:0]
		for t := range m.Threads {
			if m.Enabled(t) && waitsAlone(prog, m, t) {
				waiters = append(waiters, t)
			} else if m.Enabled(t) {
				movers = append(movers, t)
			}
		}
		// A state where every thread that can move would spin forever
		// alone is a deadlock (and explored all the same).
		stall := len(movers) > 0
		for _, t := range movers {
			stall = stall && m.SpinsForever(t, 1024)
		}
		for _, t := range movers {
			moved = true
			for alt := 0; alt < m.Alternatives(t); alt++ {
				ev = engine.Event{}
				if !m.StepAlt(t, alt, &ev) {
					sp.stops++
					switch ev.Stop {
					case engine.StopAssertion:
						sp.bugs[fmt.Sprintf("%s@%s", engine.BugAssertion, rangeOf(m, ev.Thread, ev.PC))] = true
					case engine.StopRuntimeError:
						sp.bugs[fmt.Sprintf("%s@%s", engine.BugRuntimeError, rangeOf(m, ev.Thread, ev.PC))] = true
					}
					m.Undo()
					continue
				}
				sp.transitions++
				fp := m.RecomputeFingerprint()
				enc = m.AppendState(enc[:0])
				if other, ok := exact[string(enc)]; ok && other != fp {
					return sp, fmt.Errorf("state %d's successor by thread %d: one exact state, two fingerprints %x and %x", i, t, other, fp)
				}
				exact[string(enc)] = fp
				if _, ok := seen[fp]; !ok {
					if len(nodes) >= limit {
						return sp, fmt.Errorf("%w: more than %d", errTooManyStates, limit)
					}
					seen[fp] = int32(len(nodes))
					nodes = append(nodes, node{parent: int32(i), step: schedStep{int32(t), int32(alt)}, depth: nodes[i].depth + 1})
				}
				m.Undo()
			}
		}
		if !moved || stall {
			// The spinners, then the threads that wait alone, spin as
			// dfs sees them.
			m.SetParkAlways(true)
			n := 0
			for _, t := range movers {
				for k := 0; stall && k < 1024 && m.Threads[t].Status == engine.Ready; k++ {
					m.StepAlt(t, 0, &ev)
					n++
				}
			}
			for _, t := range waiters {
				m.StepAlt(t, 0, &ev)
				n++
			}
			m.SetParkAlways(false)
			if k := deadlockKey(m); k != "" {
				sp.bugs[k] = true
			}
			for ; n > 0; n-- {
				m.Undo()
			}
		}
	}
	sp.states = len(nodes)
	if len(exact) != sp.states {
		return sp, fmt.Errorf("%d states by their fingerprints, %d by their exact encodings", sp.states, len(exact))
	}
	return sp, nil
}

// waitsAlone reports whether thread t's next step is one it would spin
// on alone, on atomic variables and mutexes only: such a thread does not
// move in the state (package stateful, "Waiting alone").
func waitsAlone(prog *engine.Program, m *engine.Machine, t int) bool {
	var ev engine.Event
	if !m.SpinsAlone(t, &ev) {
		return false
	}
	locs := []int32{ev.Loc}
	if len(ev.Acc) > 0 {
		locs = locs[:0]
		for _, a := range ev.Acc {
			locs = append(locs, a.Loc)
		}
	}
	for _, l := range locs {
		if l < 0 || !prog.Locations[l].Atomic && !prog.Locations[l].Mutex {
			return false
		}
	}
	return true
}

// rangeOf is the source range of instruction pc of thread t's body.
func rangeOf(m *engine.Machine, t, pc int32) string {
	b := m.Threads[t].Body
	if int(pc) < len(b.Ranges) {
		return b.Ranges[pc].String()
	}
	return "?"
}

// deadlockKey is the key of the deadlock in m, where no thread can move
// ("" if there is none: every thread finished, or a spinning thread read
// a location written since, a spin-blocked execution): the position of
// the first thread that has not finished, as the driver reports it.
func deadlockKey(m *engine.Machine) string {
	first := -1
	for t, th := range m.Threads {
		if m.StaleSpin(t) {
			return ""
		}
		if th.Status != engine.Finished && first < 0 {
			first = t
		}
	}
	if first < 0 {
		return ""
	}
	return fmt.Sprintf("%s@%s", engine.BugDeadlock, rangeOf(m, int32(first), m.Threads[first].PC))
}

// withoutRaces drops the data races from bug keys.
func withoutRaces(keys []string) []string {
	out := keys[:0:0]
	for _, k := range keys {
		if !strings.HasPrefix(k, string(engine.BugDataRace)+"@") {
			out = append(out, k)
		}
	}
	return out
}

// sortedKeys is the sorted keys of a set.
func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// enumerationLimit is the most states TestStatefulStates and
// TestEnumerateStates enumerate for one program (its size in testSizes,
// "enumerated states"; beyond it the program is skipped, saying so).
func enumerationLimit() int { return testSizes["enumerated states"].n("WEFT_ENUMERATED_STATES") }

// TestEnumerateStates checks the enumeration itself against dfs on the
// programs of the random generator and of version 2's (choose, signal's
// waiters, trylock, condition variables, spin-waits), where dfs reaches
// no step bound: the states it finds lead to exactly the assertion
// failures, runtime errors and deadlocks dfs finds. (Without this, a
// wrong enumeration could make TestStatefulStates agree with a wrong
// exploration.)
func TestEnumerateStates(t *testing.T) {
	t.Run("random", func(t *testing.T) { forEachRandomProgram(t, checkEnumeration) })
	t.Run("v2", func(t *testing.T) { forEachProgram(t, v2Program, checkEnumeration) })
}

// checkEnumeration is TestEnumerateStates' check of one program.
func checkEnumeration(t *testing.T, name string, prog *engine.Program, src string) {
	ref := dfsReference(t, prog, src, dfsBudget)
	if hitStepBound(ref.res) {
		t.Skipf("dfs reaches the step bound: its bugs are not all the states' bugs")
	}
	sp, err := enumerateStates(prog, enumerationLimit())
	if errors.Is(err, errTooManyStates) {
		t.Skipf("not enumerated: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	want, got := strings.Join(sortedKeys(keySet(withoutRaces(bugKeys(ref.res)))), "\n"), strings.Join(sortedKeys(sp.bugs), "\n")
	if want != got {
		t.Errorf("%s: the enumerated states lead to other bugs than dfs finds\ndfs:\n%s\nenumeration:\n%s\nprogram:\n%s", name, want, got, src)
	}
}

// plainVar matches the declaration of a shared variable that is neither
// atomic nor a mutex nor a condition variable (at the top level, where
// the generators and the examples declare them).
var plainVar = regexp.MustCompile(`(?m)^var (\w+) ((?:\[[^\]]*\])*)(int|bool|tid)\b`)

// atomicVersion is src with every plain shared variable made atomic: the
// same steps and states, and no access is ever pending for a data race,
// so that the stateful mode's states are the machine's (see "What a
// state is").
func atomicVersion(src string) string { return plainVar.ReplaceAllString(src, "var $1 atomic $2$3") }

// checkStates checks StatefulNone (with and without exact states) on
// prog against the enumeration of its states (see "What a state is"):
// exactly as many states stored if src has no plain shared variable,
// at least as many if it has; the same bugs but data races either way.
func checkStates(t *testing.T, name string, prog *engine.Program, src string) {
	t.Helper()
	requireStateful(t)
	sp, err := enumerateStates(prog, enumerationLimit())
	if errors.Is(err, errTooManyStates) {
		t.Skipf("not enumerated: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	exact := !plainVar.MatchString(src)
	for _, v := range statefulVariants() {
		if v.opts.POR != engine.StatefulNone {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			// The step bound is no bound here: a depth-first search
			// reaches each state in fewer steps than there are states
			// (with their pending accesses).
			res := exploreStateful(t, prog, src, v, max(4*sp.states+1, maxSteps(prog)))
			if !res.Complete {
				t.Fatalf("%s: stateful %s incomplete (stopped: %s) on %d machine states\n%s", name, v.name, res.Stopped, sp.states, src)
			}
			switch {
			case exact && res.States != int64(sp.states):
				t.Errorf("%s: stateful %s stored %d states, the enumeration reaches %d (%d transitions, %d stops; the mode: %d transitions, %d matched)\n%s",
					name, v.name, res.States, sp.states, sp.transitions, sp.stops, res.Transitions, res.Matched, src)
			case !exact && res.States < int64(sp.states):
				t.Errorf("%s: stateful %s stored %d states, fewer than the %d machine states the enumeration reaches\n%s",
					name, v.name, res.States, sp.states, src)
			case !exact:
				t.Logf("stateful %s: %d states stored for %d machine states (pending data-race accesses tell them apart)", v.name, res.States, sp.states)
			case exact && res.Transitions != int64(sp.transitions+sp.stops):
				t.Errorf("%s: stateful %s explored %d transitions, the enumeration %d (%d of them stops)\n%s",
					name, v.name, res.Transitions, sp.transitions+sp.stops, sp.stops, src)
			}
			want, got := strings.Join(sortedKeys(sp.bugs), "\n"), strings.Join(sortedKeys(keySet(withoutRaces(bugKeys(res)))), "\n")
			if want != got {
				t.Errorf("%s: stateful %s's bugs (data races aside) differ from those of the enumerated states\nenumeration:\n%s\nstateful %s:\n%s\nprogram:\n%s", name, v.name, want, v.name, got, src)
			}
			checkReproduce(t, name, "stateful "+v.name, prog, res)
		})
	}
}

// checkStatesBoth is checkStates on src and, if src has plain shared
// variables, on its atomicVersion, where the count must be exact.
func checkStatesBoth(t *testing.T, name string, prog *engine.Program, src string) {
	t.Helper()
	checkStates(t, name, prog, src)
	if plainVar.MatchString(src) {
		t.Run("atomic", func(t *testing.T) {
			a := atomicVersion(src)
			checkStates(t, name+" (atomic)", load(t, name+" (atomic)", a), a)
		})
	}
}

// TestStatefulStates: StatefulNone stores exactly the states the
// from-scratch enumeration reaches (see "What a state is"), on the
// examples with at most enumerationLimit() states, the known-count
// programs, and random programs of the acyclic generators (version 2's
// with chooses, signals to one of several waiters, trylock), each as
// written and with its shared variables made atomic.
func TestStatefulStates(t *testing.T) {
	requireStateful(t)
	t.Run("examples", func(t *testing.T) {
		forEachExample(t, checkStatesBoth)
	})
	t.Run("known", func(t *testing.T) {
		for _, tc := range knownCountCases() {
			t.Run(tc.name, func(t *testing.T) { checkStatesBoth(t, tc.name, load(t, tc.name, tc.src), tc.src) })
		}
	})
	for _, gen := range []struct {
		name string
		gen  func(*rand.Rand) string
	}{{"random", randomProgram}, {"v2", v2Program}} {
		t.Run(gen.name, func(t *testing.T) {
			n := size(t, "WEFT_RANDOM_PROGRAMS")
			for seed := int64(1); seed <= int64(n); seed++ {
				src := gen.gen(rand.New(rand.NewSource(seed)))
				name := fmt.Sprintf("seed %d", seed)
				t.Run(name, func(t *testing.T) { checkStatesBoth(t, name, load(t, name, src), src) })
			}
		})
	}
}
