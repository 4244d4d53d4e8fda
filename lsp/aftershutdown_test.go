package lsp

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Once the server has answered shutdown it writes nothing but answers:
// no refresh request, no notification, though edits just before the
// shutdown asked for code lens and inlay hint refreshes (their requests
// were sent from goroutines that could run after the answer).
func TestNothingAfterShutdownAnswer(t *testing.T) {
	const text = "var x int\n\nthread t {\n    x = 1\n}\n"
	const u = "file:///test/late.weft"
	for round := range 5 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			w := startWire(t)
			caps := map[string]any{
				"experimental": map[string]any{"weftStatus": true},
				"workspace": map[string]any{
					"codeLens":  map[string]any{"refreshSupport": true},
					"inlayHint": map[string]any{"refreshSupport": true},
				},
			}
			if err := w.send(request("init", "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})); err != nil {
				t.Fatal(err)
			}
			if r, ok := w.await("init", 10*time.Second); !ok || r.Error != nil {
				t.Fatalf("initialize: answered %v, %+v", ok, r.Error)
			}
			_ = w.send(notification("initialized", map[string]any{}))
			_ = w.send(didOpenOf(u, text))
			for v := 2; v < 40; v++ {
				_ = w.send(notification("textDocument/didChange", map[string]any{
					"textDocument":   map[string]any{"uri": u, "version": v},
					"contentChanges": []any{map[string]any{"text": fmt.Sprintf("%s// %d\n", text, v)}},
				}))
			}
			if err := w.send(request("sd", "shutdown", nil)); err != nil {
				t.Fatal(err)
			}
			if r, ok := w.await("sd", 10*time.Second); !ok || r.Error != nil {
				t.Fatalf("shutdown: answered %v, %+v", ok, r.Error)
			}
			time.Sleep(300 * time.Millisecond)
			w.mu.Lock()
			seq := slices.Clone(w.sequence)
			w.mu.Unlock()
			i := slices.Index(seq, `answer "sd"`)
			for _, m := range seq[i+1:] {
				if m[:7] != "answer " {
					t.Errorf("after the answer to shutdown the server wrote: %s", m)
				}
			}
			_ = w.send(notification("exit", nil))
		})
	}
}

// A client that does not answer the refresh requests (or is slow to)
// gets one of each kind at a time, not one per edit: each edit's
// refreshes waited, each in its own goroutine, until the session ended
// (1,000 edits: 2,000 goroutines and pending calls).
func TestRefreshesCoalesced(t *testing.T) {
	const text = "var x int\n\nthread t {\n    x = 1\n}\n"
	const u = "file:///test/refresh.weft"
	w := startWire(t)
	w.mu.Lock()
	w.holdRequests = true
	w.mu.Unlock()
	caps := map[string]any{"workspace": map[string]any{
		"codeLens":  map[string]any{"refreshSupport": true},
		"inlayHint": map[string]any{"refreshSupport": true},
	}}
	if err := w.send(request("init", "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": caps})); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("init", 10*time.Second); !ok || r.Error != nil {
		t.Fatalf("initialize: answered %v, %+v", ok, r.Error)
	}
	_ = w.send(notification("initialized", map[string]any{}))
	_ = w.send(didOpenOf(u, text))
	const edits = 200
	for v := 2; v < 2+edits; v++ {
		_ = w.send(notification("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": v},
			"contentChanges": []any{map[string]any{"text": fmt.Sprintf("%s// %d\n", text, v)}},
		}))
	}
	time.Sleep(time.Second)
	w.mu.Lock()
	seq := slices.Clone(w.sequence)
	w.mu.Unlock()
	count := map[string]int{}
	for _, m := range seq {
		count[m]++
	}
	for _, m := range []string{"request workspace/codeLens/refresh", "request workspace/inlayHint/refresh"} {
		if count[m] > 1 {
			t.Errorf("%d edits, no answers: %d of %s; want one at a time", edits, count[m], m)
		}
	}
}
