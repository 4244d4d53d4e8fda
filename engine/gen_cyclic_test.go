package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/engine"
	"weft/engine/ir"
)

// Cyclic random programs: models that loop forever, which only the
// stateful mode gives a verdict on.
//
// cyclicProgram makes 2–3 threads out of the shapes such models have:
// server loops (`while true { acquire; critical section; release }`),
// bounded clients, flag hand-offs with spin-waits that only read
// (`while f == 0 {}`), retry loops of a compare-and-swap
// (`atomic { if c == old { c = …; ok = true } }` until ok), locks built
// from a test-and-set that writes while it spins (inline, or a call in
// the loop's condition, or after an await), from a CAS, from trylock
// (`while !trylock(m0) {}`), or a mutex, a choose, producers and consumers on a condition variable,
// and now and then a broken variant (a test-and-set that does not set, a
// check-then-set lock, a missing unlock, a consumer without its predicate
// loop, an assertion that some order breaks). Every shared value is kept
// modulo a small N (or is a flag), and locals are only set from shared
// values or constants, so the state space is finite: the generator keeps
// only programs with at most cyclicMaxStates() states (enumerateStates).

// cyclicMaxStates bounds the machine states of a generated cyclic
// program (a program with more is thrown away and another drawn): its
// size in testSizes, "cyclic states" (WEFT_CYCLIC_STATES overrides).
func cyclicMaxStates() int { return testSizes["cyclic states"].n("WEFT_CYCLIC_STATES") }

// cyclicMaxSteps is the step bound the cyclic programs are explored
// with: a depth-first search meets every state within as many steps as
// there are states (with their pending data-race accesses, a few times
// the machine's), so it never cuts one of these. A program whose
// exploration reaches it anyway is reported (a step-bound bug in none).
const cyclicMaxSteps = 100_000

// cyclicProgram draws cyclic programs until one has at most
// cyclicMaxStates states, and returns it with its state space.
func cyclicProgram(r *rand.Rand) (string, stateSpace) {
	for {
		g := &progGen{r: r}
		src := g.cyclicProgram()
		prog, ok := tryLoad(src)
		if !ok {
			return src, stateSpace{} // the test loading it shows the generator's mistake
		}
		sp, err := enumerateStates(prog, cyclicMaxStates())
		if err == nil {
			return src, sp
		}
		genRejected++
	}
}

// cyclicLock is how the threads of a cyclic program take their lock.
type cyclicLock int

const (
	lockMutex       cyclicLock = iota // lock(m0) … unlock(m0)
	lockTAS                           // a test-and-set in a loop: writes while it waits
	lockTTAS                          // test-and-test-and-set: waits reading, then a TAS
	lockCAS                           // a compare-and-swap retried until it takes the lock
	lockTrylock                       // trylock(m0) retried
	lockTASCall                       // while tas() != 0 {}: a call that writes, in a loop's condition
	lockTrylockCond                   // while !trylock(m0) {}
	lockAwait                         // await lk == 0, then a TAS retried
	nLocks
)

// acquire writes the code that takes lock kind k; broken makes it a
// lock that does not exclude (a test-and-set that does not set, or a
// check, then a separate set).
func (g *progGen) acquire(k cyclicLock, broken bool, ind string) {
	sb := &g.sb
	line := func(s string) { sb.WriteString(ind + s + "\n") }
	switch {
	case broken && k == lockMutex:
		// Forgets to lock at all.
		line("l = lk")
	case broken:
		// Check, then set: another thread may pass the check in between.
		line("while lk != 0 {")
		line("}")
		line("lk = 1")
	case k == lockMutex:
		line("lock(m0)")
	case k == lockTAS:
		line("while true {")
		line("    atomic {")
		line("        l = lk")
		line("        lk = 1")
		line("    }")
		line("    if l == 0 {")
		line("        break")
		line("    }")
		line("}")
	case k == lockTTAS:
		line("while true {")
		line("    while lk != 0 {")
		line("    }")
		line("    atomic {")
		line("        l = lk")
		line("        lk = 1")
		line("    }")
		line("    if l == 0 {")
		line("        break")
		line("    }")
		line("}")
	case k == lockCAS:
		line("ok = false")
		line("while !ok {")
		line("    atomic {")
		line("        if lk == 0 {")
		line("            lk = 1")
		line("            ok = true")
		line("        }")
		line("    }")
		line("}")
	case k == lockTASCall:
		line("while tas() != 0 {")
		line("}")
	case k == lockTrylockCond:
		line("while !trylock(m0) {")
		line("}")
	case k == lockAwait:
		line("l = 1")
		line("while l != 0 {")
		line("    await lk == 0")
		line("    l = tas()")
		line("}")
	case k == lockTrylock:
		line("while true {")
		line("    if trylock(m0) {")
		line("        break")
		line("    }")
		line("}")
	}
}

// release writes the code that gives lock kind k back (forgot: nothing).
func (g *progGen) release(k cyclicLock, broken, forgot bool, ind string) {
	switch {
	case forgot:
	case k == lockMutex && broken:
	case k == lockMutex || k == lockTrylock || k == lockTrylockCond:
		g.sb.WriteString(ind + "unlock(m0)\n")
	default:
		g.sb.WriteString(ind + "lk = 0\n")
	}
}

// critical writes a critical section: the mutual-exclusion check (cs
// counts the threads inside), and an update of the data the lock guards.
func (g *progGen) critical(ind string) {
	r, sb := g.r, &g.sb
	fmt.Fprintf(sb, "%satomic {\n%s    cs = cs + 1\n%s}\n", ind, ind, ind)
	fmt.Fprintf(sb, "%sassert cs == 1, \"mutual exclusion\"\n", ind)
	switch r.Intn(3) {
	case 0:
		fmt.Fprintf(sb, "%sx = (x + 1) %% N\n", ind)
	case 1:
		fmt.Fprintf(sb, "%sl = x\n%sx = (l + %d) %% N\n", ind, ind, 1+r.Intn(2))
	case 2:
		fmt.Fprintf(sb, "%sy = x\n", ind)
	}
	if r.Intn(4) == 0 {
		// An assertion that some order of the updates breaks.
		fmt.Fprintf(sb, "%sassert x != %d\n", ind, 1+r.Intn(2))
	}
	fmt.Fprintf(sb, "%satomic {\n%s    cs = cs - 1\n%s}\n", ind, ind, ind)
}

// outside writes a statement outside any lock: plain accesses (data
// races where another thread writes them), an atomic update, a CAS
// retried until it succeeds, or nothing.
func (g *progGen) outside(ind string) {
	r, sb := g.r, &g.sb
	switch r.Intn(8) {
	case 0:
		fmt.Fprintf(sb, "%sl = y\n", ind)
	case 7:
		fmt.Fprintf(sb, "%sy = choose 0..2\n", ind)
	case 1:
		fmt.Fprintf(sb, "%sy = %d\n", ind, r.Intn(2))
	case 2:
		fmt.Fprintf(sb, "%satomic {\n%s    c = (c + 1) %% N\n%s}\n", ind, ind, ind)
	case 3, 4:
		// A compare-and-swap retried until it succeeds.
		fmt.Fprintf(sb, "%sok = false\n%swhile !ok {\n%s    l = c\n", ind, ind, ind)
		fmt.Fprintf(sb, "%s    atomic {\n%s        if c == l {\n%s            c = (l + 1) %% N\n%s            ok = true\n%s        }\n%s    }\n%s}\n",
			ind, ind, ind, ind, ind, ind, ind)
		if r.Intn(3) == 0 {
			fmt.Fprintf(sb, "%sassert c != %d\n", ind, r.Intn(3))
		}
	}
}

// cyclicProgram writes one cyclic program (see above).
func (g *progGen) cyclicProgram() string {
	r, sb := g.r, &g.sb
	sb.WriteString("const N = 3\nvar x int\nvar y int\nvar c atomic int\nvar f atomic int\nvar d int\n")
	sb.WriteString("var lk atomic int\nvar cs atomic int\nvar m0 mutex\nvar m1 mutex\nvar cv cond\nvar items int\n")
	sb.WriteString("func tas() int {\n    var old int\n    atomic {\n        old = lk\n        lk = 1\n    }\n    return old\n}\n")
	kind := cyclicLock(r.Intn(int(nLocks)))
	threads := 2 + r.Intn(2)
	// At most one hand-off pair and one producer/consumer pair; the other
	// threads take the lock.
	shapes := make([]int, threads)
	for t := range shapes {
		shapes[t] = r.Intn(4)
	}
	if threads >= 2 && r.Intn(3) == 0 {
		shapes[0], shapes[1] = 10, 11 // hand-off: setter, waiter
	} else if threads >= 2 && r.Intn(3) == 0 {
		shapes[0], shapes[1] = 20, 21 // producer, consumer
	}
	for t := 0; t < threads; t++ {
		fmt.Fprintf(sb, "thread t%d {\n    var l int\n    var ok bool\n", t)
		broken := r.Intn(8) == 0
		switch shapes[t] {
		case 0, 1:
			// A server loop: forever acquire, update, release.
			sb.WriteString("    while true {\n")
			g.acquire(kind, broken, "        ")
			g.critical("        ")
			g.release(kind, broken, r.Intn(12) == 0, "        ")
			if r.Intn(2) == 0 {
				g.outside("        ")
			}
			sb.WriteString("    }\n")
		case 2:
			// A client that takes the lock a bounded number of times.
			sb.WriteString("    for i in 0..2 {\n")
			g.acquire(kind, broken, "        ")
			g.critical("        ")
			g.release(kind, broken, false, "        ")
			sb.WriteString("    }\n")
			g.outside("    ")
		case 3:
			// A loop of updates outside the lock.
			sb.WriteString("    while true {\n")
			g.outside("        ")
			g.outside("        ")
			sb.WriteString("    }\n")
		case 10:
			// The setter of a hand-off: publish d, raise f, wait until the
			// waiter took it.
			sb.WriteString("    while true {\n        d = (d + 1) % N\n        f = 1\n")
			if r.Intn(6) == 0 {
				sb.WriteString("        d = 0\n") // a write after publishing: a race
			}
			sb.WriteString("        while f != 0 {\n        }\n    }\n")
		case 11:
			// The waiter: spin until f is raised, read d, lower f.
			sb.WriteString("    while true {\n        while f == 0 {\n        }\n        l = d\n")
			if r.Intn(3) == 0 {
				fmt.Fprintf(sb, "        assert l != %d\n", r.Intn(3))
			}
			sb.WriteString("        f = 0\n    }\n")
		case 20:
			// A producer of at most two items.
			sb.WriteString("    while true {\n        lock(m1)\n        if items < 2 {\n            items = items + 1\n")
			if r.Intn(3) == 0 {
				sb.WriteString("            broadcast(cv)\n")
			} else {
				sb.WriteString("            signal(cv)\n")
			}
			sb.WriteString("        }\n        unlock(m1)\n    }\n")
		case 21:
			// A consumer (broken: an if instead of a predicate loop, so
			// it may take an item that is not there).
			sb.WriteString("    while true {\n        lock(m1)\n")
			if broken {
				sb.WriteString("        if items == 0 {\n            wait(cv, m1)\n        }\n")
			} else {
				sb.WriteString("        while items == 0 {\n            wait(cv, m1)\n        }\n")
			}
			sb.WriteString("        assert items > 0, \"an item is there\"\n        items = items - 1\n        unlock(m1)\n    }\n")
		}
		sb.WriteString("}\n")
	}
	return sb.String()
}

// cyclicVariantDiffs compares what stateful variant v found (got) on a
// cyclic program with what StatefulNone found (none): complete where
// none is, the same bug kinds, and the same bugs (kind and place: a
// reduction must keep every reachable assertion failure, runtime error
// and deadlock, and every racing pair), and no more states stored than
// none (a reduction explores part of the same state graph).
func cyclicVariantDiffs(v statefulVariant, none, got *engine.Result) []string {
	var errs []string
	if none.Complete && !got.Complete {
		errs = append(errs, fmt.Sprintf("%s incomplete (stopped: %s) where none completes", v.name, got.Stopped))
	}
	kinds := func(res *engine.Result) string {
		set := map[string]bool{}
		for _, b := range res.Bugs {
			set[string(b.Kind)] = true
		}
		return strings.Join(sortedKeys(set), " ")
	}
	if a, b := kinds(none), kinds(got); a != b {
		errs = append(errs, fmt.Sprintf("bug kinds differ: none [%s], %s [%s]", a, v.name, b))
	}
	if a, b := strings.Join(bugKeys(none), " "), strings.Join(bugKeys(got), " "); a != b {
		errs = append(errs, fmt.Sprintf("bugs differ: none [%s], %s [%s]", a, v.name, b))
	}
	if none.Complete && got.States > none.States {
		errs = append(errs, fmt.Sprintf("%s stored %d states, none %d", v.name, got.States, none.States))
	}
	return errs
}

// cyclicDiffs explores a cyclic program in every stateful variant and
// returns what is wrong: StatefulNone without static facts against the
// enumeration sp (every state stored, exactly as many if src has no
// plain variable: see "What a state is"; the same bugs but data races;
// no step-bound bug; complete; with facts, still every machine state), every other variant against StatefulNone
// (cyclicVariantDiffs), and any bug that does not reproduce.
func cyclicDiffs(t *testing.T, prog *engine.Program, src string, sp stateSpace) []string {
	t.Helper()
	var errs []string
	var none *engine.Result
	exact := !plainVar.MatchString(src)
	var invisible map[ir.Site]bool
	var raceFree []bool
	for _, v := range statefulVariants() {
		if err := exactStates(); v.opts.ExactStates && err != nil {
			continue // TestStatefulStates says so, visibly
		}
		if limit := int64(testSizes["cyclic de states"].n("WEFT_CYCLIC_DE_STATES")); v.opts.POR == engine.StatefulDE && none != nil && none.States > limit {
			t.Logf("stateful %s not run: none stored %d states, more than %d (DE-S-POR's re-traversals take seconds to minutes there; WEFT_CYCLIC_DE_STATES raises the limit)", v.name, none.States, limit)
			continue
		}
		opts := engine.Options{Algorithm: engine.Stateful, MaxSteps: cyclicMaxSteps, Stateful: v.opts}
		if v.facts {
			if raceFree == nil {
				invisible, raceFree = statefulFacts(t, "facts", src, prog)
			}
			opts.Stateful.Invisible, opts.Stateful.RaceFree = invisible, raceFree
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
		for i, b := range res.Bugs {
			if err := engine.Reproduce(prog, b); err != nil {
				errs = append(errs, fmt.Sprintf("%s: bug %d (%s: %s) does not reproduce: %v", v.name, i+1, b.Kind, b.Message, err))
			}
		}
		if v.opts.POR == engine.StatefulNone && (exact && res.States != int64(sp.states) || res.States < int64(sp.states)) {
			errs = append(errs, fmt.Sprintf("%s stored %d states, the enumeration reaches %d machine states (the program has plain variables: %v)", v.name, res.States, sp.states, !exact))
		}
		if none != nil {
			diffs := cyclicVariantDiffs(v, none, res)
			errs = append(errs, diffs...)
			continue
		}
		// The reference: none without static facts, against the
		// enumeration.
		none = res
		if !res.Complete {
			errs = append(errs, fmt.Sprintf("%s incomplete (stopped: %s) on %d states", v.name, res.Stopped, sp.states))
		}
		if hitStepBound(res) {
			errs = append(errs, fmt.Sprintf("%s reports a step-bound bug on a program of %d states (step bound %d)", v.name, sp.states, cyclicMaxSteps))
		}
		if a, b := strings.Join(sortedKeys(sp.bugs), " "), strings.Join(sortedKeys(keySet(withoutRaces(bugKeys(res)))), " "); a != b {
			errs = append(errs, fmt.Sprintf("%s's bugs (data races aside) differ from the enumerated states': enumeration [%s], %s [%s]", v.name, a, v.name, b))
		}
	}
	return errs
}

// TestCyclicGenerator checks the cyclic generator and the enumeration
// on its programs without the stateful mode: every program loads, and
// every bug dfs finds within a small step bound (data races and
// step-bound bugs aside) is one the enumerated states lead to (dfs
// explores a prefix of the state graph).
func TestCyclicGenerator(t *testing.T) {
	n := size(t, "WEFT_RANDOM_PROGRAMS")
	withBugs, states := 0, 0
	for seed := int64(1); seed <= int64(n); seed++ {
		src, sp := cyclicProgram(rand.New(rand.NewSource(seed)))
		name := fmt.Sprintf("seed %d", seed)
		t.Run(name, func(t *testing.T) {
			prog := load(t, name, src)
			if sp.states == 0 {
				t.Fatalf("%s: not enumerated\n%s", name, src)
			}
			states += sp.states
			if len(sp.bugs) > 0 {
				withBugs++
			}
			res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.DFS, MaxSteps: 24, MaxExecutions: 2000})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range withoutRaces(withoutStepBound(bugKeys(res))) {
				if !sp.bugs[k] {
					t.Errorf("%s: dfs finds %s, which no enumerated state leads to (enumeration: %v)\n%s", name, k, sortedKeys(sp.bugs), src)
				}
			}
		})
	}
	t.Logf("%d programs, %d states in all, %d with bugs besides data races; %d programs drawn again for having more than %d states",
		n, states, withBugs, genRejected, cyclicMaxStates())
}

// TestStatefulCyclic: cyclic random programs (cyclicProgram), every
// stateful variant: StatefulNone stores exactly the enumerated states and
// finds exactly the bugs they lead to (data races aside), completes and
// reports no step-bound bug; every other variant completes, finds the
// same bugs as none (data races included) and stores no more states;
// every bug reproduces. Seeds as testSizes says (WEFT_CYCLIC_PROGRAMS=N
// overrides).
//
// The long campaign goes on past mismatches, shrinks the first and ends
// with a tally:
//
//	WEFT_CYCLIC_HUNT=5000 go test ./engine -run TestCyclicHunt -count=1 -v -timeout 0
//
// (WEFT_LONG=1 runs it over longCyclicPrograms programs; WEFT_HUNT_SEED
// is the first seed; WEFT_CYCLIC_STATES=N draws programs of up to N
// machine states, WEFT_CYCLIC_DE_STATES=N runs DE-S-POR up to N stored
// states: 250 programs of up to 2,500 states took 9 s on this machine,
// 1,500 of up to 600 took 14 s.)
func TestStatefulCyclic(t *testing.T) {
	requireStateful(t)
	n := size(t, "WEFT_CYCLIC_PROGRAMS")
	failed := 0
	for seed := int64(1); seed <= int64(n) && failed < maxFailingSeeds; seed++ {
		src, sp := cyclicProgram(rand.New(rand.NewSource(seed)))
		name := fmt.Sprintf("seed %d", seed)
		if !t.Run(name, func(t *testing.T) {
			for _, e := range cyclicDiffs(t, load(t, name, src), src, sp) {
				t.Errorf("%s: %s", name, e)
			}
			if t.Failed() {
				t.Logf("program:\n%s", src)
				return
			}
			// The same with every variable atomic: no pending data-race
			// accesses, so none's states are exactly the machine's.
			a := atomicVersion(src)
			pa := load(t, name+" (atomic)", a)
			spa, err := enumerateStates(pa, 4*cyclicMaxStates())
			if err != nil {
				t.Fatalf("%s (atomic): %v\n%s", name, err, a)
			}
			for _, e := range cyclicDiffs(t, pa, a, spa) {
				t.Errorf("%s (atomic): %s", name, e)
			}
			if t.Failed() {
				t.Logf("program:\n%s", a)
			}
		}) {
			failed++
		}
	}
	if failed == maxFailingSeeds {
		t.Errorf("stopped after %d failing seeds", failed)
	}
}

// longCyclicPrograms is how many programs WEFT_LONG=1 hunts over (when
// WEFT_CYCLIC_HUNT does not say).
const longCyclicPrograms = 3000

// TestCyclicHunt is TestStatefulCyclic's long campaign (see there for the
// command line), off unless WEFT_CYCLIC_HUNT=N or WEFT_LONG=1.
func TestCyclicHunt(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("WEFT_CYCLIC_HUNT"))
	if err != nil {
		if !longRun() {
			t.Skip("WEFT_CYCLIC_HUNT=N hunts over N cyclic programs (WEFT_LONG=1: over longCyclicPrograms)")
		}
		n = longCyclicPrograms
	}
	requireStateful(t)
	first := int64(1)
	if v, err := strconv.ParseInt(os.Getenv("WEFT_HUNT_SEED"), 10, 64); err == nil {
		first = v
	}
	mismatches, withBugs, states := 0, 0, 0
	start := time.Now()
	for seed := first; seed < first+int64(n); seed++ {
		src, sp := cyclicProgram(rand.New(rand.NewSource(seed)))
		name := fmt.Sprintf("seed %d", seed)
		prog := load(t, name, src)
		states += sp.states
		if len(sp.bugs) > 0 {
			withBugs++
		}
		errs := cyclicDiffs(t, prog, src, sp)
		if len(errs) == 0 {
			continue
		}
		mismatches++
		t.Errorf("%s: %s\n%s", name, strings.Join(errs, "; "), src)
		if mismatches == 1 {
			small := shrinkProgram(src, func(s string) bool {
				p, ok := tryLoad(s)
				if !ok {
					return false
				}
				sp, err := enumerateStates(p, cyclicMaxStates())
				return err == nil && len(cyclicDiffs(t, p, s, sp)) > 0
			})
			p, _ := tryLoad(small)
			sp, _ := enumerateStates(p, cyclicMaxStates())
			t.Logf("%s: shrunk to:\n%s\n%s", name, small, strings.Join(cyclicDiffs(t, p, small, sp), "; "))
		}
		if (seed-first+1)%500 == 0 {
			t.Logf("%d programs, %v", seed-first+1, time.Since(start).Round(time.Second))
		}
	}
	t.Logf("%d cyclic programs from seed %d in %v: %d states in all, %d with bugs besides data races, %d mismatches; %d programs drawn again for having more than %d states",
		n, first, time.Since(start).Round(time.Second), states, withBugs, mismatches, genRejected, cyclicMaxStates())
}

// hasKind reports whether res has a bug of kind k.
func hasKind(res *engine.Result, k engine.BugKind) bool {
	for _, b := range res.Bugs {
		if b.Kind == k {
			return true
		}
	}
	return false
}
