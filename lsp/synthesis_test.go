package lsp

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// synthCounter counts the SMT syntheses (z3 processes) of a server:
// running now, the most at once, and started in all.
type synthCounter struct {
	mu                     sync.Mutex
	running, peak, started int
}

func (c *synthCounter) hook(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running += delta
	if delta > 0 {
		c.started++
	}
	c.peak = max(c.peak, c.running)
}

func (c *synthCounter) get() (running, peak, started int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running, c.peak, c.started
}

// waitSynth waits (up to timeout) until cond holds of the counts.
func waitSynth(t *testing.T, c *synthCounter, what string, timeout time.Duration, cond func(running, started int) bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		running, _, started := c.get()
		if cond(running, started) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s: %d syntheses running, %d started", timeout, what, running, started)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Many documents with atomic blocks: the syntheses of their independence
// conditions (one z3 process each) run at most maxSyntheses at once,
// however many checks may run; closing the documents ends those running
// and starts none of those waiting.
func TestSynthesisBounded(t *testing.T) {
	pi := string(piModel(t))
	baseline := runtime.NumGoroutine()
	var count synthCounter
	w := startWireWith(t, Options{onSynthesis: count.hook})
	// Checks may run 8 at once; the quick check waits for the conditions.
	w.initialize(map[string]any{"idleDelayMs": 1, "quickBudgetMs": 60000, "escalate": false, "maxConcurrent": 8})
	const docs = 10
	open := func(name string) string {
		u := "file:///test/" + name
		if err := w.send(didOpenOf(u, pi)); err != nil {
			t.Fatal(err)
		}
		return u
	}
	for i := range docs {
		open(fmt.Sprintf("pi%d.weft", i))
	}
	waitSynth(t, &count, "every document's synthesis to end", 120*time.Second, func(running, started int) bool {
		return started == docs && running == 0
	})
	if _, peak, _ := count.get(); peak > maxSyntheses {
		t.Errorf("%d syntheses ran at once; the bound is %d", peak, maxSyntheses)
	}

	// Closing the documents cancels the syntheses with their snapshots.
	var late []string
	for i := range docs {
		late = append(late, open(fmt.Sprintf("late%d.weft", i)))
	}
	waitSynth(t, &count, "a late document's synthesis", 60*time.Second, func(running, started int) bool {
		return running > 0
	})
	for _, u := range late {
		if err := w.send(notification("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})); err != nil {
			t.Fatal(err)
		}
	}
	waitSynth(t, &count, "the syntheses to stop after the close", 5*time.Second, func(running, started int) bool {
		return running == 0
	})
	_, _, before := count.get()
	time.Sleep(300 * time.Millisecond)
	if _, _, after := count.get(); after != before || after >= 2*docs {
		t.Errorf("syntheses started after their documents closed: %d, then %d (of %d documents)", before, after, 2*docs)
	}
	if _, peak, _ := count.get(); peak > maxSyntheses {
		t.Errorf("%d syntheses ran at once; the bound is %d", peak, maxSyntheses)
	}
	if err := w.end(baseline); err != nil {
		t.Errorf("Serve: %v", err)
	}
}
