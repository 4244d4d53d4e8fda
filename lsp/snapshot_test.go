package lsp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// A hover holding a snapshot that is superseded (a newer version came,
// or the document closed) before its answer is ready is answered
// ContentModified, never from the older text; one on the latest
// snapshot is answered. The facts of a superseded snapshot are not
// computed.
func TestHoverOnSupersededSnapshot(t *testing.T) {
	src := readExample(t, "fig1.weft")
	u := uri.URI("file:///test/fig1.weft")
	for _, c := range []struct {
		name string
		// end does what makes the snapshot the hover holds an older one.
		end    func(d *document)
		answer bool
	}{
		{"the latest", func(*document) {}, true},
		{"a newer version came", func(d *document) { d.snap.cancel() }, false},
		{"the document closed", func(d *document) { d.cancel() }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &Server{ctx: ctx, docs: map[uri.URI]*document{}}
			dctx, dcancel := context.WithCancel(ctx)
			defer dcancel()
			d := &document{s: s, uri: u, ctx: dctx, cancel: dcancel, version: 1, snap: newSnapshot(dctx, "fig1.weft", 1, []byte(src))}
			s.docs[u] = d
			// The document's state is as the hover found it; the
			// snapshot's context says what happened since.
			c.end(d)
			h, err := s.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 21, Character: 10}}})
			if c.answer {
				if err != nil || h == nil || !strings.Contains(h.Contents.(*protocol.MarkupContent).Value, "Dependent with") {
					t.Fatalf("the latest snapshot: hover %v, %v; want its facts", h, err)
				}
				return
			}
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != protocol.CodeContentModified {
				t.Fatalf("answered %v, %v; want ContentModified", h, err)
			}
		})
	}
}

// The counts of the independence conditions live beside the snapshots,
// keyed by version: a hover on a snapshot shows its own version's
// counts, never another's.
func TestHoverCountsOfItsVersion(t *testing.T) {
	src := "var x int\nthread a {\n    var v int = 1\n    atomic {\n        x = v\n    }\n}\nthread b {\n    var r int = x\n}\n"
	snap := newSnapshot(context.Background(), "/test/counts.weft", 1, []byte(src))
	f, _, err := snap.facts(context.Background())
	if err != nil || f == nil || f.ind == nil {
		t.Fatalf("no facts: %v", err)
	}
	sa := f.ind.Sites(f.sum.StatementAt(source.Pos{Offset: strings.Index(src, "atomic")}))
	sb := f.ind.Sites(f.sum.StatementAt(source.Pos{Offset: strings.Index(src, "var r")}))
	stats := []engine.IndepStat{{Pair: [2]ir.Site{sb[0], sa[0]}, Origin: "read-write", Text: "x == v", Checked: 5, Held: 3}}
	for _, c := range []struct {
		name    string
		set     func(r *results)
		counted bool
	}{
		{"no exploration", func(*results) {}, false},
		{"this version's", func(r *results) { r.setIndependence(1, stats) }, true},
		{"a newer version's", func(r *results) { r.setIndependence(1, stats); r.setIndependence(2, stats) }, false},
		{"an exploration without counts keeps the earlier", func(r *results) { r.setIndependence(1, stats); r.setIndependence(1, nil) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r results
			c.set(&r)
			h, err := hoverOn(context.Background(), snap, &r, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: "file:///test/counts.weft"}, Position: protocol.Position{Line: 8, Character: 6}}})
			if err != nil || h == nil {
				t.Fatalf("hover: %v, %v", h, err)
			}
			v := h.Contents.(*protocol.MarkupContent).Value
			if got := strings.Contains(v, "held 3 of 5 times"); got != c.counted {
				t.Errorf("counts shown: %v, want %v:\n%s", got, c.counted, v)
			}
		})
	}
}

// A promise computes once for all its callers; a caller whose context
// ends gets its error at once while the computation goes on for the
// others; the computation ends with its lifetime; a panic is an error,
// not a dead server.
func TestPromise(t *testing.T) {
	t.Run("once for every caller", func(t *testing.T) {
		p := newPromise[int]()
		var runs atomic.Int32
		release := make(chan struct{})
		f := func(context.Context) (int, error) {
			runs.Add(1)
			<-release
			return 42, nil
		}
		var wg sync.WaitGroup
		got := make([]int, 8)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _ = p.get(context.Background(), context.Background(), f)
			}()
		}
		// A caller that gives up does not wait.
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := p.get(gone, context.Background(), f); !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled caller: %v, want context.Canceled", err)
		}
		close(release)
		wg.Wait()
		if runs.Load() != 1 || fmt.Sprint(got) != "[42 42 42 42 42 42 42 42]" {
			t.Errorf("%d runs, values %v; want one run, 42 for all", runs.Load(), got)
		}
	})
	t.Run("ends with its lifetime", func(t *testing.T) {
		p := newPromise[int]()
		life, end := context.WithCancel(context.Background())
		p.start(life, func(ctx context.Context) (int, error) {
			<-ctx.Done()
			return 0, ctx.Err()
		})
		end()
		wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := p.wait(wait); !errors.Is(err, context.Canceled) {
			t.Errorf("wait: %v, want the computation's context.Canceled", err)
		}
	})
	t.Run("a panic is an error", func(t *testing.T) {
		p := newPromise[int]()
		_, err := p.get(context.Background(), context.Background(), func(context.Context) (int, error) { panic("boom") })
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("error %v, want the panic", err)
		}
	})
	t.Run("not started", func(t *testing.T) {
		p := newPromise[int]()
		if _, err := p.wait(context.Background()); !errors.Is(err, errNotStarted) {
			t.Errorf("wait: %v", err)
		}
		if _, _, ok := p.ready(); ok {
			t.Error("ready before it started")
		}
	})
}

// Hovers and edits at once, over the wire, with the server in this
// process (run it with -race): every hover is answered within its
// deadline, with facts or with ContentModified (the version it asked
// about was replaced), and the session ends cleanly.
func TestHoverEditRace(t *testing.T) {
	baseline := runtime.NumGoroutine()
	w := startWire(t)
	w.initialize(map[string]any{"escalate": false, "idleDelayMs": 0})
	u := "file:///test/race.weft"
	src := readExample(t, "fig1.weft")
	if err := w.send(notification("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "weft", "version": 1, "text": src}})); err != nil {
		t.Fatal(err)
	}
	const hovers, edits = 60, 30
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := 2; v < 2+edits; v++ {
			// Every other version adds a line at the top (positions move),
			// the others take it away.
			text := src
			if v%2 == 0 {
				text = "// edit " + fmt.Sprint(v) + "\n" + src
			}
			if err := w.send(notification("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": u, "version": v},
				"contentChanges": []any{map[string]any{"text": text}},
			})); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for i := range hovers {
		if err := w.send(request(1000+i, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 21, "character": 10}})); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	answered, modified := 0, 0
	for i := range hovers {
		r, ok := w.await(1000+i, 30*time.Second)
		switch {
		case !ok:
			t.Fatalf("hover %d: no answer within 30 s", i)
		case r.Error != nil && r.Error.Code == int(protocol.CodeContentModified):
			modified++
		case r.Error != nil:
			t.Errorf("hover %d: error %+v; want an answer or ContentModified", i, r.Error)
		default:
			answered++
		}
	}
	t.Logf("%d hovers answered, %d ContentModified", answered, modified)
	// Once the edits stop, a hover is answered from the last version
	// (the text of fig1 again: line 22 is the writer's x[w] = 7).
	if err := w.send(request("last", "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 21, "character": 10}})); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("last", 30*time.Second); !ok || r.Error != nil || !strings.Contains(string(r.Result), "write x[w]") {
		t.Errorf("the hover after the edits: %v, %+v, %s; want the last version's facts", ok, r.Error, r.Result)
	}
	if err := w.end(baseline); err != nil {
		t.Logf("session ended with %v", err)
	}
}
