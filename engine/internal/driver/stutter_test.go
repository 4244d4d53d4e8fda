package driver

import (
	"fmt"
	"testing"

	"weft/engine/interp"
)

// TestWithoutStutters: the steps of an iteration that started over (its
// last step's Stutter, that thread's steps before it) leave the
// schedule; the other threads' steps between them stay, in order.
func TestWithoutStutters(t *testing.T) {
	ev := func(thread, stutter int32) interp.Event { return interp.Event{Thread: thread, Stutter: stutter} }
	cases := []struct {
		name string
		evs  []interp.Event
		want string // the threads of the steps left
	}{
		{"none", []interp.Event{ev(0, 0), ev(1, 0)}, "[0 1]"},
		{"one step", []interp.Event{ev(0, 0), ev(1, 1), ev(0, 0)}, "[0 0]"},
		{"two steps with another thread's between", []interp.Event{ev(1, 0), ev(0, 0), ev(1, 0), ev(0, 2), ev(1, 0)}, "[1 1 1]"},
		{"two iterations in a row", []interp.Event{ev(0, 0), ev(0, 0), ev(0, 2), ev(0, 0), ev(0, 2), ev(0, 0)}, "[0 0]"},
		{"two threads each", []interp.Event{ev(0, 0), ev(1, 0), ev(1, 2), ev(0, 2)}, "[]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []int32
			for _, e := range withoutStutters(c.evs) {
				got = append(got, e.Thread)
			}
			if s := fmt.Sprint(got); s != c.want && !(c.want == "[]" && len(got) == 0) {
				t.Errorf("left %s, want %s", s, c.want)
			}
			if stuttered(c.evs) != (c.name != "none") {
				t.Errorf("stuttered = %v", stuttered(c.evs))
			}
		})
	}
}
