package engine_test

import (
	"context"
	"testing"
	"time"

	"weft/engine"
)

// hugeStateSpace has about 10^12 states: no stateful exploration ends it.
const hugeStateSpace = `
var a atomic int
var b atomic int
var c atomic int
thread x {
    while true {
        a = (a + 1) % 10007
    }
}
thread y {
    while true {
        b = (b + 3) % 10009
    }
}
thread z {
    while true {
        c = (c + 7) % 10037
    }
}
`

// TestStatefulDeadline: a stateful exploration stops within a second of
// its deadline, incomplete, in every reduction.
func TestStatefulDeadline(t *testing.T) {
	prog := load(t, "huge", hugeStateSpace)
	for _, por := range engine.StatefulPORs() {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		res, err := engine.Explore(ctx, prog, engine.Options{Algorithm: engine.Stateful, MaxSteps: 1 << 24, Stateful: engine.StatefulOptions{POR: por}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 1300*time.Millisecond {
			t.Errorf("%s: took %v with a deadline of 300ms", por, took)
		}
		if res.Complete || res.Stopped != engine.StoppedTimeout {
			t.Errorf("%s: complete %v, stopped %q; want incomplete, timeout", por, res.Complete, res.Stopped)
		}
	}
}

// wideStateSpace has 7^8 (5.8 million) states but paths of 48 steps:
// its visited set, not its stack, fills a memory budget.
const wideStateSpace = `
var v [8]int
thread w[i in 0..8] {
    for k in 0..6 {
        v[i] = k + 1
    }
}
`

// TestStatefulMemoryBudget: the visited set fills the memory budget:
// the exploration stops incomplete ("memory"), or, with Bitstate, goes
// on and says it may have skipped states ("bitstate"), never verified.
func TestStatefulMemoryBudget(t *testing.T) {
	prog := load(t, "wide", wideStateSpace)
	for _, bitstate := range []bool{false, true} {
		// Without bitstate hashing it stops at the budget, well before
		// the deadline; with it, it goes on to the deadline.
		deadline := 30 * time.Second
		if bitstate {
			deadline = 2 * time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		res, err := engine.Explore(ctx, prog, engine.Options{Algorithm: engine.Stateful, MaxSteps: 1 << 24, MaxMemory: 4 << 20, HeapLimit: -1,
			Stateful: engine.StatefulOptions{POR: engine.StatefulNone, Bitstate: bitstate}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if res.Complete || len(res.Bugs) != 0 {
			t.Errorf("bitstate %v: complete %v with %d bugs: the model has more states than the budget holds", bitstate, res.Complete, len(res.Bugs))
		}
		switch {
		case !bitstate && res.Stopped != engine.StoppedMemory:
			t.Errorf("stopped %q, want %q", res.Stopped, engine.StoppedMemory)
		case bitstate && res.Stopped != engine.StoppedBitstate && res.Stopped != engine.StoppedTimeout:
			// It goes on past the budget: to its end, or to the deadline.
			t.Errorf("bitstate: stopped %q, want %q or %q", res.Stopped, engine.StoppedBitstate, engine.StoppedTimeout)
		}
		if res.VisitedBytes == 0 || res.VisitedBytes > 4<<20 {
			t.Errorf("bitstate %v: visited set peaked at %d bytes, budget 4 MiB", bitstate, res.VisitedBytes)
		}
		t.Logf("bitstate %v: %d states, %d bytes, stopped %q", bitstate, res.States, res.VisitedBytes, res.Stopped)
	}
}

// TestStatefulBitstateEnds: a model whose states outgrow the budget but
// whose search ends: with Bitstate it runs to its end, and the result
// says it may have skipped states (StoppedBitstate), not verified.
func TestStatefulBitstateEnds(t *testing.T) {
	prog := load(t, "medium", `
var v [6]int
thread w[i in 0..6] {
    for k in 0..5 {
        v[i] = k + 1
    }
}
`)
	res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.Stateful, MaxSteps: 1 << 24, MaxMemory: 2 << 20, HeapLimit: -1,
		Stateful: engine.StatefulOptions{POR: engine.StatefulNone, Bitstate: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || res.Stopped != engine.StoppedBitstate || len(res.Bugs) != 0 {
		t.Errorf("complete %v, stopped %q, %d bugs; want incomplete, %q, none", res.Complete, res.Stopped, len(res.Bugs), engine.StoppedBitstate)
	}
	t.Logf("%d states", res.States)
}

// TestStatefulMissProbability: a verdict rests on the fingerprint and
// says how likely a collision was.
func TestStatefulMissProbability(t *testing.T) {
	prog := load(t, "lock", `
var m mutex
var c int
thread w[i in 0..2] {
    while true {
        lock(m)
        c = (c + 1) % 5
        unlock(m)
    }
}
`)
	res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: engine.Stateful, MaxSteps: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Bugs) != 0 {
		t.Fatalf("complete %v, bugs %d: want verified", res.Complete, len(res.Bugs))
	}
	if res.MissProbability <= 0 || res.MissProbability > 1e-30 {
		t.Errorf("MissProbability = %g for %d states", res.MissProbability, res.States)
	}
	found := false
	for _, a := range res.Assumptions {
		found = found || a == engine.AssumeNoFingerprintCollision
	}
	if !found {
		t.Errorf("assumptions %v lack %q", res.Assumptions, engine.AssumeNoFingerprintCollision)
	}
}
