package replay

import (
	"context"
	"strings"
	"testing"

	"weft/engine"
)

// WriteText says a counterexample in the words of `weft replay`: the
// header, each step with what it wrote, the bug.
func TestWriteText(t *testing.T) {
	for _, c := range []struct {
		model string
		kind  engine.BugKind
		want  []string
	}{
		{"lost_update.weft", engine.BugAssertion, []string{
			"replaying assertion: an increment was lost at m.weft:19:5 (8 steps)\n",
			"threads: incr[0], incr[1], main\n",
			"  write c = 1  (13:5)\n  shared: c = 1\n",
			"\nstep 8  main  assertion failed: an increment was lost  (19:5)\n",
			"\nassertion: an increment was lost\n",
		}},
		{"philosophers_deadlock.weft", engine.BugDeadlock, []string{
			"replaying deadlock: phil[0] waits at lock(fork[1])",
			"\ndeadlock: phil[0] waits at lock(fork[1])",
			"\nstep 1  phil[0]  lock fork[0]  (16:5)\n  shared: fork[0] = held by phil[0]\n",
		}},
	} {
		t.Run(c.model, func(t *testing.T) {
			prog, bug, _ := load(t, c.model, c.kind)
			doc, err := Build(context.Background(), prog, bug, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := doc.WriteText(&b, "m.weft"); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("the text lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// A long counterexample is written as its two ends: the replay files the
// language server writes for clients stay small (a step-bound trace has
// 100,000 steps).
func TestWriteTextLong(t *testing.T) {
	doc := &Document{Kind: string(engine.BugStepBound), Message: "the execution ran past the step bound"}
	for i := range 100_000 {
		doc.Steps = append(doc.Steps, Step{Step: i + 1, Thread: "t", Op: "read f → 0"})
	}
	var b strings.Builder
	if err := doc.WriteText(&b, "m.weft"); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if n := strings.Count(text, "\nstep "); n != MaxTextSteps {
		t.Errorf("%d steps written, want %d", n, MaxTextSteps)
	}
	for _, w := range []string{"\nstep 500  t", "\n… 99000 steps left out", "\nstep 99501  t", "\nstep 100000  t"} {
		if !strings.Contains(text, w) {
			t.Errorf("the text lacks %q", w)
		}
	}
	if len(text) > 100_000 {
		t.Errorf("%d bytes for a trace written as 1,000 steps", len(text))
	}
}
