package interp

import (
	"fmt"
	"testing"
)

// TestSpinsAlone: a thread at a loop head whose next step is a whole
// iteration that would spin spins alone (a false await, a test-and-set
// or a trylock that finds the lock taken); one whose iteration would go
// on, has two visible steps, or is already past its first step, does
// not. The machine is left exactly as it was (fingerprint and spin
// state).
func TestSpinsAlone(t *testing.T) {
	const tas = "var flag atomic bool = %s\nthread s {\n    while true {\n        var old bool\n        atomic {\n            old = flag\n            flag = true\n        }\n        if !old {\n            break\n        }\n    }\n}\n"
	cases := []struct {
		name  string
		src   string
		pre   []int // steps made first
		spins bool
	}{
		{name: "an await that is false",
			src: "var f atomic int\nthread s {\n    await f == 1\n}\n", spins: true},
		{name: "an await that is true",
			src: "var f atomic int = 1\nthread s {\n    await f == 1\n}\n", spins: false},
		{name: "a test-and-set that finds the flag set",
			src: fmt.Sprintf(tas, "true"), spins: true},
		{name: "a test-and-set that takes the flag",
			src: fmt.Sprintf(tas, "false"), spins: false},
		{name: "a trylock that finds the mutex held",
			src: "var m mutex\nthread s {\n    while !trylock(m) {\n    }\n    unlock(m)\n}\nthread h {\n    lock(m)\n    unlock(m)\n}\n",
			pre: []int{1}, spins: true},
		{name: "a trylock that takes the mutex",
			src: "var m mutex\nthread s {\n    while !trylock(m) {\n    }\n    unlock(m)\n}\n", spins: false},
		{name: "an iteration of two reads",
			src: "var f atomic int\nvar g atomic int\nthread s {\n    while f == 0 && g == 0 {\n    }\n}\n", spins: false},
		{name: "the second read of an iteration",
			src: "var f atomic int\nvar g atomic int\nthread s {\n    while f == 0 && g == 0 {\n    }\n}\n",
			pre: []int{0}, spins: false},
		{name: "a step outside any loop",
			src: "var f atomic int\nthread s {\n    f = 1\n}\n", spins: false},
		{name: "a spin on a plain word (the caller decides about races)",
			src: "var f int\nthread s {\n    while f == 0 {\n    }\n}\n", spins: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewMachineConfig(loadSrc(t, c.name, c.src), Config{Fingerprint: true})
			if err != nil {
				t.Fatal(err)
			}
			var ev Event
			for _, th := range c.pre {
				if !m.Step(th, &ev) {
					t.Fatalf("pre-step of %s stopped: %s", m.Threads[th].Name, ev.Message)
				}
			}
			before, fp := spinSnapshot(m), m.RecomputeFingerprint()
			if got := m.SpinsAlone(0, &ev); got != c.spins {
				t.Errorf("SpinsAlone = %v, want %v", got, c.spins)
			}
			if got := spinSnapshot(m); got != before {
				t.Errorf("the machine changed:\n got %s\nwant %s", got, before)
			}
			if got, _ := m.Fingerprint(); got != fp || m.RecomputeFingerprint() != fp {
				t.Errorf("the fingerprint changed")
			}
			if m.Threads[0].Status != Ready {
				t.Errorf("the thread is %v after, want ready", m.Threads[0].Status)
			}
		})
	}
}
