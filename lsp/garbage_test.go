package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

const garbageDoc = "file:///test/garbage.weft"

// codeLensProbe asks for the lenses of garbageDoc: a request that goes
// through the whole server and answers a list when all is well.
func codeLensProbe(id string) map[string]any {
	return request(id, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": garbageDoc}})
}

func jsonFrame(msg any) []byte {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return frame(b)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func change(version any, changes ...map[string]any) map[string]any {
	return notification("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": garbageDoc, "version": version},
		"contentChanges": changes,
	})
}

func rangeEdit(l1, c1, l2, c2 any, text string) map[string]any {
	return map[string]any{
		"range": map[string]any{"start": map[string]any{"line": l1, "character": c1}, "end": map[string]any{"line": l2, "character": c2}},
		"text":  text,
	}
}

// Hostile frames, one kind at a time, on an initialized session with an
// open document: the server skips each (and says so in its log) and then
// answers the requests that follow, except those a frame's wrong length
// swallowed (lost); a frame that ends the session ends it (ends); and
// the goroutines of the session end with it.
func TestGarbage(t *testing.T) {
	probe := len(jsonFrame(codeLensProbe("p1")))
	tests := []struct {
		name    string
		garbage []byte
		lost    int      // the first probes that the garbage may swallow
		logs    string   // what the server's log must say
		answers []string // ids in the garbage that must be answered
		errCode int      // … with this error code (0: any answer)
		ends    string   // the garbage ends the session: Serve's error
		noProbe bool     // the input ends right after the garbage
	}{
		{name: "header line without colon", garbage: []byte("garbage\r\n\r\n"), logs: "malformed message header"},
		{name: "length not a number", garbage: []byte("Content-Length: abc\r\n\r\n"), logs: "malformed message header"},
		{name: "negative length", garbage: []byte("Content-Length: -5\r\n\r\n"), logs: "malformed message header"},
		{name: "zero length", garbage: []byte("Content-Length: 0\r\n\r\n"), logs: "malformed message header"},
		{name: "overflowing length", garbage: []byte("Content-Length: 99999999999999999999999\r\n\r\n"), logs: "malformed message header"},
		{name: "no length", garbage: []byte("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"), logs: "malformed message header"},
		{name: "header line of 100 kB", garbage: []byte(strings.Repeat("X", 100_000) + "\r\n\r\n"), logs: "malformed message header"},
		{name: "stray blank lines", garbage: []byte("\r\n\n\r\n")},
		{name: "LF line endings", garbage: []byte("Content-Length: 70\n\n" + fmt.Sprintf("%-70s", `{"jsonrpc":"2.0","id":"lf","method":"weft/none","params":{}}`)), answers: []string{"lf"}, errCode: -32601},
		{name: "stray bytes before a frame", garbage: []byte("xyz"), logs: "skipped"},
		{name: "body longer than its length", garbage: []byte(`Content-Length: 5` + "\r\n\r\n" + `{"jsonrpc":"2.0","method":"x"}`), logs: "skipped"},
		// The body takes the first probe and part of the second.
		{name: "truncated body", garbage: []byte("Content-Length: " + strconv.Itoa(probe+20) + "\r\n\r\n"), lost: 2, logs: "skipped"},
		{name: "length over the limit, with its body", garbage: cat([]byte("Content-Length: "+strconv.Itoa(maxFrame+1)+"\r\n\r\n"), bytes.Repeat([]byte("x"), maxFrame+1)), logs: "limit"},
		{name: "invalid JSON", garbage: frame([]byte("{{{{")), logs: "skipped"},
		{name: "JSON array", garbage: frame([]byte("[1,2]")), logs: "skipped"},
		{name: "JSON null", garbage: frame([]byte("null")), logs: "skipped"},
		{name: "JSON string", garbage: frame([]byte(`"x"`)), logs: "skipped"},
		{name: "object, not JSON-RPC", garbage: frame([]byte(`{"foo":1}`))},
		{name: "JSON-RPC 1.0", garbage: frame([]byte(`{"jsonrpc":"1.0","id":"v1","method":"weft/none"}`))},
		{name: "batch", garbage: jsonFrame([]any{codeLensProbe("b1"), codeLensProbe("b2")}), logs: "skipped"},
		{name: "id an object", garbage: frame([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`))},
		{name: "id a fraction", garbage: frame([]byte(`{"jsonrpc":"2.0","id":1.5,"method":"weft/none"}`))},
		{name: "method and result", garbage: frame([]byte(`{"jsonrpc":"2.0","id":"mr","method":"shutdown","result":1}`))},
		{name: "unknown method", garbage: jsonFrame(request("u", "weft/nothing", []int{1})), answers: []string{"u"}, errCode: -32601},
		{name: "unknown method without params", garbage: jsonFrame(request("u0", "weft/nothing", nil)), answers: []string{"u0"}, errCode: -32601},
		{name: "standard method without params", garbage: jsonFrame(request("cl", "textDocument/codeLens", nil)), answers: []string{"cl"}, errCode: -32602},
		{name: "unknown notification", garbage: jsonFrame(notification("weft/nothing", []int{1}))},
		{name: "params of the wrong type", garbage: jsonFrame(request("wp", "textDocument/codeLens", "x")), answers: []string{"wp"}, errCode: -32602},
		{name: "hover on a line past the end", garbage: jsonFrame(request("h", "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": garbageDoc}, "position": map[string]any{"line": 1 << 30, "character": 1 << 30}})), answers: []string{"h"}},
		{name: "command without arguments", garbage: jsonFrame(request("c", "workspace/executeCommand", map[string]any{"command": cmdTrace})), answers: []string{"c"}, errCode: -32602},
		{name: "command with arguments of the wrong type", garbage: jsonFrame(request("c2", "workspace/executeCommand", map[string]any{"command": cmdTrace, "arguments": []any{1, nil}})), answers: []string{"c2"}, errCode: -32602},
		{name: "trace of no bug", garbage: jsonFrame(request("c3", "workspace/executeCommand", map[string]any{"command": cmdTrace, "arguments": []any{garbageDoc, "bug-999"}})), answers: []string{"c3"}, errCode: -32602},
		{name: "didOpen params a number", garbage: jsonFrame(notification("textDocument/didOpen", 5))},
		{name: "didChange of a document not open", garbage: jsonFrame(notification("textDocument/didChange", map[string]any{
			"textDocument": map[string]any{"uri": "file:///nowhere.weft", "version": 2}, "contentChanges": []any{map[string]any{"text": "x"}}}))},
		{name: "edits out of range, versions going back", garbage: cat(
			jsonFrame(change(7, rangeEdit(500, 3, 900, 1, "var y int\n"))),
			jsonFrame(change(3, rangeEdit(0, 1<<20, 0, 1<<20, "é😀"))),
			jsonFrame(change(-4, rangeEdit(4, 2, 1, 0, ""))), // end before start
			jsonFrame(change(2, rangeEdit(-1, -1, 1.5, "x", "z"))),
			jsonFrame(change("nine", map[string]any{"text": 42})),
		)},
		{name: "response to no request", garbage: jsonFrame(map[string]any{"jsonrpc": "2.0", "id": 12345, "result": nil})},
		{name: "error response to no request", garbage: jsonFrame(map[string]any{"jsonrpc": "2.0", "id": "zz", "error": map[string]any{"code": 1, "message": "no"}})},
		{name: "cancel of no request", garbage: jsonFrame(notification("$/cancelRequest", map[string]any{"id": 999}))},
		{name: "progress cancel of no token", garbage: jsonFrame(notification("window/workDoneProgress/cancel", map[string]any{"token": 7}))},
		{name: "initialize again", garbage: jsonFrame(request("i2", "initialize", map[string]any{"capabilities": map[string]any{}})), answers: []string{"i2"}, errCode: -32600},
		{name: "bad settings", garbage: jsonFrame(notification("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"weft": map[string]any{"idleDelayMs": -1, "maxSteps": "many"}}}))},
		{name: "exit before shutdown", garbage: jsonFrame(notification("exit", nil)), ends: ErrExitWithoutShutdown.Error()},
		{name: "input ends in a huge length", garbage: []byte("Content-Length: 1000000000000\r\n\r\n"), noProbe: true, ends: "unexpected EOF"},
		{name: "input ends in a body", garbage: []byte("Content-Length: 10\r\n\r\n{"), noProbe: true, ends: "unexpected EOF"},
		{name: "input ends in a header", garbage: []byte("Content-Length: 10\r\n"), noProbe: true, ends: "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			baseline := runtime.NumGoroutine()
			w := startWire(t)
			w.initialize(map[string]any{"idleDelayMs": 60000})
			if err := w.send(notification("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": garbageDoc, "languageId": "weft", "version": 1, "text": "var x int\n\nthread t {\n    x = 1\n}\n",
			}})); err != nil {
				t.Fatal(err)
			}
			if err := w.writeRaw(tc.garbage); err != nil {
				t.Fatalf("writing the garbage: %v", err)
			}
			for _, id := range tc.answers {
				r, ok := w.await(id, 10*time.Second)
				switch {
				case !ok:
					t.Errorf("no answer to %q", id)
				case tc.errCode != 0 && (r.Error == nil || r.Error.Code != tc.errCode):
					t.Errorf("%q answered %s / %+v, want error %d", id, r.Result, r.Error, tc.errCode)
				}
			}
			if tc.ends != "" && !tc.noProbe {
				select {
				case <-w.served:
				case <-time.After(10 * time.Second):
					t.Fatalf("the session did not end")
				}
			}
			if tc.ends == "" && !tc.noProbe {
				const probes = 3
				for i := 1; i <= probes; i++ {
					if err := w.send(codeLensProbe(fmt.Sprintf("p%d", i))); err != nil {
						t.Fatalf("probe %d: %v", i, err)
					}
				}
				for i := tc.lost + 1; i <= probes; i++ {
					r, ok := w.await(fmt.Sprintf("p%d", i), 10*time.Second)
					var lenses []json.RawMessage
					if !ok || r.Error != nil || json.Unmarshal(r.Result, &lenses) != nil || len(lenses) == 0 {
						t.Errorf("probe %d after the garbage: answered %v, %s / %+v; want the lenses\nserver log:\n%s", i, ok, r.Result, r.Error, w.serverLog())
					}
				}
			}
			if tc.logs != "" && !strings.Contains(w.serverLog(), tc.logs) {
				t.Errorf("the server's log does not say %q:\n%s", tc.logs, w.serverLog())
			}
			err := w.end(baseline)
			switch {
			case tc.ends == "" && err != nil:
				t.Errorf("Serve: %v, want nil at the end of the input", err)
			case tc.ends != "" && (err == nil || !strings.Contains(err.Error(), tc.ends)):
				t.Errorf("Serve: %v, want %q", err, tc.ends)
			}
		})
	}
}

// Before initialize, a request is answered "not initialized" (-32002) and
// a notification is dropped; the session then initializes as usual.
func TestBeforeInitialize(t *testing.T) {
	baseline := runtime.NumGoroutine()
	w := startWire(t)
	if err := w.send(codeLensProbe("early")); err != nil {
		t.Fatal(err)
	}
	if err := w.send(notification("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": garbageDoc, "languageId": "weft", "version": 1, "text": "var x int\n",
	}})); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("early", 10*time.Second); !ok || r.Error == nil || r.Error.Code != -32002 {
		t.Errorf("a request before initialize: answered %v, %+v; want error -32002", ok, r.Error)
	}
	w.initialize(nil)
	// The didOpen was dropped: the document is not open.
	if err := w.send(codeLensProbe("late")); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("late", 10*time.Second); !ok || r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("lenses of a document opened before initialize: answered %v, %s / %+v; want error -32602 (not open)", ok, r.Result, r.Error)
	}
	if err := w.send(request("bye", "shutdown", nil)); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("bye", 10*time.Second); !ok || r.Error != nil {
		t.Errorf("shutdown: answered %v, %+v", ok, r.Error)
	}
	if err := w.send(notification("exit", nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.end(baseline); err != nil {
		t.Errorf("Serve after shutdown and exit: %v", err)
	}
}
