package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/engine"
)

// The review of waiting alone, looping again and --no-race-check: each
// row is a program built to break one rule of their soundness arguments
// (package stateful's "Waiting alone" and "Looping again", interp's
// "Looping again"). Every stateful reduction must find exactly dfs's
// bugs, at the program's bound and at every small bound, each bug
// replaying; with NoRaceCheck every mode must find dfs's bugs but its
// data races.
var review30Programs = []struct {
	name, why, src string
}{
	{
		name: "two-read-spin-aba",
		why:  "a spin of two reads whose first word changes and changes back while it is between them: a stale record left out of the key",
		src: `var x atomic int
var y atomic int

thread a {
    while x == 0 && y == 0 {}
}

thread b {
    x = 1
    x = 0
}
`,
	},
	{
		name: "write-then-inner-spin",
		why:  "an iteration that writes (a change the first time, a no-op after) and then spins in an inner loop",
		src: `var f atomic int
var g atomic int

thread a {
    while g == 0 {
        f = 1
        while f == 1 && g == 0 {}
    }
}

thread b {
    await f == 1
    f = 0
    await f == 1
    g = 1
}
`,
	},
	{
		name: "tas-no-op-release",
		why:  "a test-and-set on a set flag is a no-op write that still releases: dropping it from a schedule must not break a race report",
		src: `var flag atomic bool
var d int

thread w[i in 0..2] {
    while true {
        var old bool
        atomic {
            old = flag
            flag = true
        }
        if !old {
            break
        }
    }
    d = d + 1
}
`,
	},
	{
		name: "tas-then-racy-read",
		why:  "a spinner whose no-op test-and-set another thread reads from, then a plain read after the other's plain write",
		src: `var flag atomic bool = true
var seen atomic int
var d int

thread s {
    var n int = 0
    while seen == 0 {
        var old bool
        atomic {
            old = flag
            flag = true
        }
    }
    d = 2
}

thread r {
    d = 1
    var v bool = flag
    seen = 1
}
`,
	},
	{
		name: "trylock-spin",
		why:  "a trylock spin beside a thread that holds the mutex and may never release it",
		src: `var m mutex
var x atomic int

thread a {
    lock(m)
    if x == 0 {
        unlock(m)
    }
}

thread b {
    while !trylock(m) {}
    x = 1
    unlock(m)
}
`,
	},
	{
		name: "await-compound",
		why:  "an await whose condition reads one word or two depending on the first",
		src: `var f atomic int
var g atomic int

thread s {
    await f == 1 && g == 1 || f == 2
    assert f != 2 || g == 0, "both"
}

thread a {
    f = 1
    f = 2
}

thread b {
    g = 1
}
`,
	},
	{
		name: "mixed-plain-atomic",
		why:  "an iteration that reads an atomic word and a plain one: it must park (its race)",
		src: `var f atomic int
var p int

thread s {
    while f == 0 && p == 0 {}
}

thread a {
    p = 1
}

thread b {
    f = 1
}
`,
	},
	{
		name: "mixed-atomic-then-plain-later",
		why:  "a multi-read spin on atomics that loops again, then a plain access racing with a write ordered only by an atomic read of the stutter",
		src: `var a atomic int
var w atomic int
var z int

thread s {
    while a == 0 {
        var t int = w
    }
    var r int = z
}

thread c {
    z = 1
    w = 1
}

thread b {
    a = 1
}
`,
	},
	{
		name: "cond-beside-spinner",
		why:  "a condition variable wait and signal beside a thread spinning on an atomic",
		src: `var m mutex
var c cond
var ready int
var f atomic int

thread waiter {
    lock(m)
    while ready == 0 {
        wait(c, m)
    }
    unlock(m)
    f = 1
}

thread sig {
    lock(m)
    ready = 1
    signal(c)
    unlock(m)
}

thread spin {
    while f == 0 {}
}
`,
	},
	{
		name: "lost-signal-beside-spinner",
		why:  "a lost wake-up (a deadlock) while another thread spins forever: both are deadlocks dfs reports",
		src: `var m mutex
var c cond
var f atomic int

thread waiter {
    lock(m)
    wait(c, m)
    unlock(m)
    f = 1
}

thread sig {
    lock(m)
    signal(c)
    unlock(m)
}

thread spin {
    while f == 0 && f != 3 {}
}
`,
	},
	{
		name: "spawn-join-spinner",
		why:  "spinning procs spawned and joined",
		src: `var f atomic int
var g atomic int

proc worker(k int) {
    while f == 0 && g == 0 {}
    g = k
}

thread main {
    var t0 tid = spawn worker(1)
    var t1 tid = spawn worker(2)
    f = 1
    join t0
    join t1
    assert g != 1, "worker 1 last"
}
`,
	},
	{
		name: "function-loop",
		why:  "a spin loop in a function called twice from a thread, and from another",
		src: `var f atomic int
var g atomic int

func wait2(v int) {
    while f != v && g != v {}
}

thread a {
    wait2(1)
    wait2(2)
    g = 3
}

thread b {
    f = 1
    g = 2
    await g == 3
}
`,
	},
	{
		name: "choose-in-loop",
		why:  "a choose inside a loop that otherwise spins",
		src: `var f atomic int
var g atomic int

thread a {
    var n int = 0
    while f == 0 && n < 2 {
        var c int = choose 0..2
        if c == 1 {
            n = n + 1
        }
        var t int = g
    }
}

thread b {
    f = 1
    g = 1
}
`,
	},
	{
		name: "stall-with-lock",
		why:  "a spinner holding a lock another thread waits for, and a third that spins on what that thread would write",
		src: `var m mutex
var f atomic int
var g atomic int

thread a {
    lock(m)
    while f == 0 && g == 0 {}
    unlock(m)
}

thread b {
    lock(m)
    f = 1
    unlock(m)
}

thread c {
    while f == 0 && g != 5 {}
    g = 1
}
`,
	},
	{
		name: "two-spinners-one-writes-no-op",
		why:  "two threads spin forever, one making no-op writes the other reads",
		src: `var f atomic int
var g atomic int
var h atomic int

thread a {
    while g == 0 {
        f = 0
        var t int = h
    }
}

thread b {
    while f == 0 && h == 0 {}
    g = 1
}

thread c {
    h = 1
    h = 0
}
`,
	},
	{
		name: "toggle-slot",
		why:  "a loop whose slot toggles: it comes back to its head with other slots, then spins two iterations later",
		src: `var f atomic int
var g atomic int

thread a {
    var i int = 5
    while true {
        if i > 3 {
            i = 0
        }
        var t int = f
        var u int = g
        if t == 1 {
            break
        }
        i = i + u
    }
}

thread b {
    g = 0
    f = 1
}
`,
	},
	{
		name: "nested-loops",
		why:  "an inner spin inside an outer loop that counts",
		src: `var f atomic int
var g atomic int

thread a {
    var i int = 0
    while i < 2 {
        while f == i && g == 0 {}
        i = i + 1
    }
    assert g == 0, "g"
}

thread b {
    f = 1
    f = 2
}

thread c {
    g = 1
}
`,
	},
	{
		name: "stall-hides-dependent-step",
		why: "a state where the only thread that can move spins forever (t0 holds the test-and-set lock for good) " +
			"is a stall: the spinner's steps there (a failed test-and-set, dependent with t0's) must count " +
			"for DE's and DL's current sets, or t1's rounds before t0 takes the lock are never explored " +
			"(TestCyclicHunt seed 50333, shrunk)",
		src: `const N = 3
var x int
var lk atomic int

func tas() int {
    var old int
    atomic {
        old = lk
        lk = 1
    }
    return old
}

thread t0 {
    var l int
    while true {
        l = 1
        while l != 0 {
            l = tas()
        }
        assert x != 2
    }
}

thread t1 {
    var l int
    while true {
        l = 1
        while l != 0 {
            await lk == 0
            l = tas()
        }
        x = (x + 1) % N
        lk = 0
    }
}
`,
	},
	{
		name: "no-op-store-stutter",
		why: "an iteration that stores the value its word holds starts over only if the store is left out " +
			"of no schedule that needs it: b's read of w from a's store is not ordered after c, from c's it is, " +
			"so a schedule without a's store loses the race on z",
		src: `var g atomic int
var w atomic int
var z int

thread c {
    z = 1
    w = 2
}

thread a {
    while g == 0 {
        var t int = g
        w = 2
    }
}

thread b {
    var v int = w
    var u int = w
    if v == 2 && u == 2 {
        var r int = z
    }
    g = 1
}
`,
	},
	{
		name: "spinner-holds-lock-blocked",
		why:  "a spinner holding a mutex another thread is blocked on, beside a second spinner: a stall only when nobody can release either",
		src: `var m mutex
var f atomic int
var g atomic int
var x int

thread a {
    lock(m)
    while f == 0 && g == 0 {}
    x = 1
    unlock(m)
}

thread b {
    lock(m)
    x = 2
    unlock(m)
    f = 1
}

thread c {
    while g == 0 && f == 0 {}
    g = 1
}
`,
	},
	{
		name: "trylock-two-step",
		why:  "a spin of an atomic read and a trylock (two steps, loops again when the trylock fails)",
		src: `var m mutex
var f atomic int

thread a {
    var ok bool = false
    while !ok {
        var t int = f
        ok = trylock(m)
    }
    assert f == 0, "after"
    unlock(m)
}

thread b {
    lock(m)
    f = 1
    unlock(m)
}
`,
	},
	{
		name: "stall-then-signal",
		why:  "a thread waiting on a condition variable whose signaller spins first: no stall while the spinner can be released",
		src: `var m mutex
var c cond
var f atomic int
var g atomic int
var ready int

thread w {
    lock(m)
    while ready == 0 {
        wait(c, m)
    }
    unlock(m)
    g = 1
}

thread s {
    while f == 0 && g == 0 {}
    lock(m)
    ready = 1
    signal(c)
    unlock(m)
}

thread k {
    f = 1
}
`,
	},
	{
		name: "nested-stutter-outer-counter",
		why:  "an inner two-read spin inside an outer counting loop, its word changed back and forth",
		src: `var f atomic int
var g atomic int

thread a {
    var n int = 0
    while n < 2 {
        while f == n && g == 0 {}
        n = n + 1
    }
    assert g == 0, "g set"
}

thread b {
    f = 1
    f = 0
    f = 1
    f = 2
}

thread c {
    g = 1
}
`,
	},
	{
		name: "join-spinner",
		why:  "a spawned thread spinning while its parent joins it",
		src: `var f atomic int
var g atomic int

proc p() {
    while f == 0 && g == 0 {}
}

thread main {
    var t tid = spawn p()
    g = 1
    join t
    f = 1
}
`,
	},
}

func TestStatefulReview30(t *testing.T) {
	requireStateful(t)
	for _, tc := range review30Programs {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("probes: %s", tc.why)
			prog := load(t, tc.name, tc.src)
			compareStateful(t, tc.name, prog, tc.src)
		})
	}
}

func TestStatefulReview30NoRaceCheck(t *testing.T) {
	requireStateful(t)
	for _, tc := range review30Programs {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: maxSteps(prog)}, false)
			want := strings.Join(withoutRaces(bugKeys(ref.res)), "\n")
			algos := []engine.Algorithm{engine.DFS, engine.SDPOR, engine.CDPOR, engine.QPOR, engine.Optimal, engine.Stateful}
			if hitStepBound(ref.res) {
				// Executions that do not end: the stateless modes run to
				// the bound (slowly); the stateful mode must find at least
				// dfs's other bugs.
				algos = []engine.Algorithm{engine.Stateful}
			}
			for _, algo := range algos {
				opts := engine.Options{Algorithm: algo, NoRaceCheck: true, MaxSteps: maxSteps(prog)}
				pors := []engine.StatefulPOR{""}
				if algo == engine.Stateful {
					pors = append([]engine.StatefulPOR{engine.StatefulNone}, engine.StatefulPORs()...)
				}
				for _, por := range pors {
					opts.Stateful.POR = por
					out := exploreWith(t, prog, opts, false)
					checkReproduce(t, tc.name, string(algo)+string(por), prog, out.res)
					got := strings.Join(bugKeys(out.res), "\n")
					if hitStepBound(ref.res) {
						got := keySet(bugKeys(out.res))
						for _, k := range withoutStepBound(withoutRaces(bugKeys(ref.res))) {
							if !got[k] {
								t.Errorf("%s %s with NoRaceCheck: misses dfs's %s", algo, por, k)
							}
						}
						continue
					}
					if got != want {
						t.Errorf("%s %s with NoRaceCheck: bugs\n%s\nwant dfs's but its data races\n%s", algo, por, got, want)
					}
				}
			}
		})
	}
}

func TestStatefulReview30StepBound(t *testing.T) {
	requireStateful(t)
	for _, tc := range review30Programs {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			invisible, raceFree := statefulFacts(t, tc.name, tc.src, prog)
			for bound := 1; bound <= 15; bound++ {
				ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: bound}, false)
				for _, por := range append([]engine.StatefulPOR{engine.StatefulNone}, engine.StatefulPORs()...) {
					for _, nrc := range []bool{false, true} {
						opts := engine.Options{Algorithm: engine.Stateful, MaxSteps: bound, NoRaceCheck: nrc, Stateful: engine.StatefulOptions{POR: por}}
						opts.Stateful.Invisible, opts.Stateful.RaceFree = invisible, raceFree
						out := exploreWith(t, prog, opts, false)
						checkReproduce(t, tc.name, fmt.Sprintf("stateful-%s-bound%d", por, bound), prog, out.res)
						w := withoutStepBound(bugKeys(ref.res))
						if nrc {
							w = withoutRaces(w)
						}
						if got, w := strings.Join(withoutStepBound(bugKeys(out.res)), "\n"), strings.Join(w, "\n"); got != w {
							t.Errorf("bound %d, %s, norace %v: bugs differ\ndfs:\n%s\nstateful:\n%s", bound, por, nrc, w, got)
						}
						if a, b := hitStepBound(ref.res), hitStepBound(out.res); a != b {
							t.Logf("bound %d, %s, norace %v: dfs step-bound %v, stateful %v", bound, por, nrc, a, b)
						}
					}
				}
			}
		})
	}
}

// TestStatefulStallLongIteration: a thread whose loop sets a slot before
// the iteration's first visible step (so that its first arrival's record
// does not park it, though every state of the iteration is the one of
// the next) and whose iteration is longer than the stall test's probe
// spins forever all the same: every reduction reports dfs's deadlock,
// rather than verifying the model.
func TestStatefulStallLongIteration(t *testing.T) {
	requireStateful(t)
	for _, n := range []int{10, 1100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var b strings.Builder
			b.WriteString("var x atomic int\n\nthread s {\n    var t int = 0\n    var i int = 5\n    while true {\n        if i > 3 {\n            i = 0\n        }\n")
			for range n {
				b.WriteString("        t = x\n")
			}
			b.WriteString("        if t == 1 {\n            break\n        }\n    }\n}\n")
			src := b.String()
			prog := load(t, "long", src)
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS}, false)
			want := strings.Join(bugKeys(ref.res), "\n")
			if !strings.HasPrefix(want, "deadlock@") {
				t.Fatalf("dfs finds %q, want the deadlock", want)
			}
			for _, por := range append([]engine.StatefulPOR{engine.StatefulNone}, engine.StatefulPORs()...) {
				out := exploreWith(t, prog, engine.Options{Algorithm: engine.Stateful, Stateful: engine.StatefulOptions{POR: por}}, false)
				if got := strings.Join(bugKeys(out.res), "\n"); got != want {
					t.Errorf("%s: bugs\n%s\ndfs finds\n%s", por, got, want)
				}
				checkReproduce(t, "long", "stateful-"+string(por), prog, out.res)
			}
		})
	}
}
