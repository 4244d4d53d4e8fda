package interp

import (
	"strings"
	"testing"

	"weft/engine/ir"
)

// loopAgainMachine is a fingerprinting machine for src with SetLoopAgain
// on the locations allow allows.
func loopAgainMachine(t *testing.T, name, src string, allow func(ir.Location) bool) *Machine {
	t.Helper()
	prog := loadSrc(t, name, src)
	m, err := NewMachineConfig(prog, Config{Fingerprint: true})
	if err != nil {
		t.Fatal(err)
	}
	allowed := make([]bool, len(prog.Locations))
	for loc, l := range prog.Locations {
		allowed[loc] = allow(l)
	}
	if err := m.SetLoopAgain(allowed); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLoopAgain: with SetLoopAgain, an iteration of visible steps on
// allowed locations that would spin starts over at its head, its last
// step saying how many steps it had (Event.Stutter), in the state it
// started from (the same fingerprint, from scratch too); one that read a
// location not allowed parks, and so does every one under SetParkAlways;
// undoing restores the machine. SetLoopAgain refuses a machine that has
// made a step.
func TestLoopAgain(t *testing.T) {
	const twoReads = "var f atomic int = 1\nvar g atomic int = 1\nvar p int = 1\nthread s {\n    while f == 1 && %s == 1 {\n    }\n}\n"
	cases := []struct {
		name, src  string
		park       bool
		parkAlways bool
		stutter    int32 // of the iteration's last step
		iterSteps  int
	}{
		{name: "two atomic reads start over", src: strings.Replace(twoReads, "%s", "g", 1), stutter: 2, iterSteps: 2},
		{name: "a plain read parks", src: strings.Replace(twoReads, "%s", "p", 1), park: true, iterSteps: 2},
		{name: "under SetParkAlways it parks", src: strings.Replace(twoReads, "%s", "g", 1), parkAlways: true, park: true, iterSteps: 2},
		{name: "a failed test-and-set starts over",
			src:     "var flag atomic bool = true\nthread s {\n    while true {\n        var old bool\n        atomic {\n            old = flag\n            flag = true\n        }\n        if !old {\n            break\n        }\n    }\n}\n",
			stutter: 1, iterSteps: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := loopAgainMachine(t, c.name, c.src, func(l ir.Location) bool { return l.Atomic || l.Mutex })
			m.SetParkAlways(c.parkAlways)
			before, fp := spinSnapshot(m), m.RecomputeFingerprint()
			var ev Event
			for i := 0; i < c.iterSteps; i++ {
				if !m.Step(0, &ev) {
					t.Fatalf("step %d stopped: %s", i+1, ev.Message)
				}
				if got, _ := m.Fingerprint(); got != m.RecomputeFingerprint() {
					t.Fatalf("step %d: the fingerprint is not the from-scratch one", i+1)
				}
				if i < c.iterSteps-1 && ev.Stutter != 0 {
					t.Errorf("step %d: Stutter %d before the iteration ended", i+1, ev.Stutter)
				}
			}
			if got := m.Threads[0].Status == Spinning; got != c.park {
				t.Fatalf("parked %v, want %v", got, c.park)
			}
			if ev.Stutter != c.stutter {
				t.Errorf("the last step's Stutter = %d, want %d", ev.Stutter, c.stutter)
			}
			if got, _ := m.Fingerprint(); !c.park && got != fp {
				t.Errorf("back at the head, the state is not the one the iteration started from")
			}
			if err := m.SetLoopAgain(nil); err == nil {
				t.Errorf("SetLoopAgain with steps made: no error")
			}
			m.UndoTo(0)
			if got := spinSnapshot(m); got != before {
				t.Errorf("undone:\n got %s\nwant %s", got, before)
			}
			if got, _ := m.Fingerprint(); got != fp {
				t.Errorf("undone: another fingerprint")
			}
		})
	}
}

// TestSpinsForever: a thread spins forever alone when, run alone, it
// parks with nothing it read changed and every step pure: in the middle
// of an iteration too; not when the iteration writes, or leads to
// another loop after a write, or the loop exits.
func TestSpinsForever(t *testing.T) {
	cases := []struct {
		name, src string
		pre       []int
		spins     bool
	}{
		{name: "two reads that hold", src: "var f atomic int = 1\nvar g atomic int = 1\nthread s {\n    while f == 1 && g == 1 {\n    }\n}\n", spins: true},
		{name: "in the middle of the iteration", src: "var f atomic int = 1\nvar g atomic int = 1\nthread s {\n    while f == 1 && g == 1 {\n    }\n}\n", pre: []int{0}, spins: true},
		{name: "a loop that exits", src: "var f atomic int = 1\nvar g atomic int\nthread s {\n    while f == 1 && g == 1 {\n    }\n}\n", spins: false},
		{name: "a write, then another loop that spins",
			src:   "var f atomic int = 1\nvar w atomic int\nthread s {\n    while f == 1 {\n        w = 1\n        while f == 1 {\n        }\n    }\n}\n",
			spins: false},
		{name: "a thread outside any loop", src: "var f atomic int\nthread s {\n    f = 1\n}\n", spins: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := loopAgainMachine(t, c.name, c.src, func(ir.Location) bool { return true })
			var ev Event
			for _, th := range c.pre {
				m.Step(th, &ev)
			}
			before, fp := spinSnapshot(m), m.RecomputeFingerprint()
			if got := m.SpinsForever(0, 100); got != c.spins {
				t.Errorf("SpinsForever = %v, want %v", got, c.spins)
			}
			if got := spinSnapshot(m); got != before {
				t.Errorf("the machine changed:\n got %s\nwant %s", got, before)
			}
			if got, _ := m.Fingerprint(); got != fp {
				t.Errorf("the fingerprint changed")
			}
		})
	}
}
