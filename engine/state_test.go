package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"weft/engine"
)

// The locals a replay shows are the variables in scope where each thread
// stands: a body's `var`s from their declaration to the end of their
// block (they were missing: only loop variables showed), not while the
// thread stands at the declaration itself (it has not run), and a
// function's parameters while it runs.
func TestStepStatesLocals(t *testing.T) {
	for _, c := range []struct {
		name     string
		src      string
		schedule []int32
		step     int    // 1-based
		thread   string // whose locals
		want     string // its locals, then " | FUNC: locals" per call
	}{
		{name: "a var of a thread body", src: `
var c int
var m mutex
thread t {
    var i int
    lock(m)
    i = c
    unlock(m)
    c = i + 1
}`, schedule: []int32{0, 0}, step: 2, thread: "t", want: "i=0"},
		{name: "a var of a thread array's body", src: `
var c int
thread w[k in 0..2] {
    var first int = k
    var second int = k + 1
    c = first + second
}`, schedule: []int32{1}, step: 1, thread: "w[0]", want: "first=0 second=1"},
		{name: "standing at its own declaration", src: `
var c int = 5
thread u {
    c = 1
}
thread t {
    var k int = c
    c = k + 1
}`, schedule: []int32{0}, step: 1, thread: "t", want: ""},
		{name: "after its declaration ran", src: `
var c int = 5
thread u {
    c = 1
}
thread t {
    var k int = c
    c = k + 1
}`, schedule: []int32{1}, step: 1, thread: "t", want: "k=5"},
		{name: "in its block", src: `
var c int
thread t {
    if c == 0 {
        var k int = 3
        c = k
    }
    c = 9
}`, schedule: []int32{0}, step: 1, thread: "t", want: "k=3"},
		{name: "past the end of its block", src: `
var c int
thread t {
    if c == 0 {
        var k int = 3
        c = k
    }
    c = 9
}`, schedule: []int32{0, 0}, step: 2, thread: "t", want: ""},
		{name: "a function's parameter", src: `
var c int
func f(n int) int {
    c = n
    c = n + 1
    return n
}
thread t {
    var r int = f(4)
    c = r
}`, schedule: []int32{0}, step: 1, thread: "t", want: " | f: n=4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := load(t, c.name, c.src)
			states, err := engine.StepStates(context.Background(), prog, c.schedule, engine.ReplayOptions{}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, th := range states[c.step-1].Threads {
				if th.Name != c.thread {
					continue
				}
				got := named(th.Locals)
				for _, call := range th.Calls {
					got += fmt.Sprintf(" | %s: %s", call.Func, named(call.Locals))
				}
				if got != c.want {
					t.Errorf("after step %d, %s at %v has locals %q, want %q", c.step, th.Name, th.At, got, c.want)
				}
				return
			}
			t.Fatalf("no thread %s after step %d", c.thread, c.step)
		})
	}
}

func named(vs []engine.NamedValue) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.Name+"="+v.Value)
	}
	return strings.Join(parts, " ")
}

// ReplayContext stops when its context ends, however long the schedule.
func TestReplayContextCancelled(t *testing.T) {
	prog := load(t, "spin", "var flag int\nvar c int\nthread t {\n    while flag == 0 {\n        c = c + 1\n    }\n}\n")
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	_, _, err := engine.ReplayContext(ctx, prog, make([]int32, 1_000_000), engine.ReplayOptions{NoSpinWait: true}, func(engine.ReplayStep) {
		if steps++; steps == 10 {
			cancel()
		}
	})
	if err != context.Canceled || steps > 1024 {
		t.Errorf("after %d steps: %v, want context.Canceled within 1,024 steps", steps, err)
	}
}
