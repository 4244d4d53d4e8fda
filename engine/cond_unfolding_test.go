package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/engine"
	"weft/engine/internal/irtest"
)

// Condition variables in qpor and optimal: the known results of issue 17
// and the random programs of genV2 (without spurious wake-ups, which
// these modes refuse), every unfolding mode against dfs.

// TestCondEveryMode: the bounded buffer (one condition variable and
// signal deadlocks with two producers and two consumers; two, or
// broadcast, are correct) and the lost wake-up, in every unfolding mode
// against dfs.
func TestCondEveryMode(t *testing.T) {
	for _, tt := range []struct {
		twoConds, broadcast bool
		deadlock            bool
	}{
		{false, false, true},
		{true, false, false},
		{false, true, false},
	} {
		name := fmt.Sprintf("bounded buffer two conds %v broadcast %v", tt.twoConds, tt.broadcast)
		prog := boundedBuffer(2, 2, tt.twoConds, tt.broadcast)
		compareQPORWithin(t, name, prog, name, 2_000_000)
		res := exploreProg(t, prog, engine.Options{Algorithm: engine.Optimal})
		got := strings.Join(bugKeys(res), ",")
		if tt.deadlock != strings.HasPrefix(got, "deadlock@") || !tt.deadlock && got != "" {
			t.Errorf("%s: optimal: bugs %q", name, got)
		}
	}
	p := irtest.New()
	mx := p.Var("m", irtest.Mutex, 0)
	cv := p.Var("ready", irtest.Cond, 0)
	s := p.Thread("signaller")
	s.Lock(mx)
	s.Signal(cv)
	s.Unlock(mx)
	w := p.Thread("waiter")
	w.Lock(mx)
	w.Wait(cv, mx)
	w.Unlock(mx)
	compareQPOR(t, "lost wake-up", p.MustBuild(), "lost wake-up")
}

// TestCondRandomEveryMode compares every unfolding mode with dfs on the
// random programs of genV2 that do not explore spurious wake-ups.
func TestCondRandomEveryMode(t *testing.T) {
	n := int64(size(t, "WEFT_V2_PROGRAMS"))
	compared, tried := 0, 0
	for seed := range n {
		prog, desc, spurious := genV2(seed)
		if spurious {
			continue
		}
		tried++
		name := fmt.Sprintf("v2 seed %d", seed)
		if !t.Run(name, func(t *testing.T) {
			ref := exploreWith(t, prog, engine.Options{Algorithm: engine.DFS, MaxSteps: 200, MaxExecutions: dfsBudget}, true)
			if !ref.res.Complete {
				t.Skipf("more than %d interleavings", dfsBudget)
			}
			compared++
			for _, mode := range qporModes {
				// Odd seeds with every access a step (no coarse tails).
				opts := engine.Options{Algorithm: mode.algo, QPOR: engine.QPOROptions{K: mode.k}, MaxSteps: 200, EveryAccess: seed%2 == 1}
				if mode.prune {
					engine.PruneAlways(&opts)
				}
				got := exploreWith(t, prog, opts, true)
				checkAgainstDFS(t, name, mode.name, prog, desc, ref, got)
				if n := engine.Anomalies(got.res); n != 0 {
					t.Errorf("%s: %d anomalies; the first: %s", mode.name, n, engine.FirstAnomaly(got.res))
				}
				if !got.res.Complete {
					t.Errorf("%s: incomplete (%s)", mode.name, got.res.Stopped)
				}
				if mode.algo == engine.Optimal && got.res.SSB != 0 {
					t.Errorf("optimal explored %d sleep-set-blocked executions", got.res.SSB)
				}
			}
		}) {
			t.Logf("%s:\n%s", name, desc)
		}
	}
	if compared < tried*3/4 {
		t.Errorf("only %d of %d programs compared", compared, tried)
	}
}
