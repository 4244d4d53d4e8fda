package lsp

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// A request the client cancels is answered -32800 (RequestCancelled), and
// the session goes on.
func TestCancelRequest(t *testing.T) {
	baseline := runtime.NumGoroutine()
	held := make(chan struct{}, 1)
	w := startWireWith(t, Options{beforeRequest: func(ctx context.Context, method string) {
		if method != protocol.MethodTextDocumentHover {
			return
		}
		held <- struct{}{}
		<-ctx.Done() // held until the client cancels it
	}})
	w.initialize(nil)
	u := "file:///test/cancel.weft"
	if err := w.send(notification("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "weft", "version": 1, "text": "var c int\n"}})); err != nil {
		t.Fatal(err)
	}
	hover := map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 0, "character": 4}}
	if err := w.send(request(7, "textDocument/hover", hover)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the hover never reached the server")
	}
	if err := w.send(notification("$/cancelRequest", map[string]any{"id": 7})); err != nil {
		t.Fatal(err)
	}
	r, ok := w.await(7, 10*time.Second)
	if !ok || r.Error == nil || r.Error.Code != -32800 {
		t.Fatalf("cancelled hover answered %v %+v, want error -32800", ok, r.Error)
	}
	// The session goes on.
	if err := w.send(request(8, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": u}})); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await(8, 10*time.Second); !ok || r.Error != nil {
		t.Fatalf("codeLens after the cancel: %v %+v", ok, r.Error)
	}
	if err := w.end(baseline); err != nil {
		t.Logf("session ended with %v", err)
	}
}
