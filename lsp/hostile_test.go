package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// startWireProcess runs `weft lsp --stdio` as a subprocess driven by raw
// frames, as startWire drives Serve: what the test writes is exactly what
// the server reads. served is closed when the process has exited;
// w.exitCode then says its exit code.
func startWireProcess(t *testing.T) *wire {
	t.Helper()
	bin := buildWeft(t)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{
		t: t, in: inW,
		served: make(chan struct{}), readDone: make(chan struct{}),
		changed: make(chan struct{}), responses: map[string]wireResponse{},
	}
	cmd := exec.Command(bin, "lsp", "--stdio")
	// Files, not pipes the os/exec package copies: Wait then does not
	// race the reading of the output.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, wireLog{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = inR.Close()
	_ = outW.Close()
	w.proc = cmd
	go func() {
		w.serveErr = cmd.Wait()
		close(w.served)
	}()
	go w.readOutput(outR)
	t.Cleanup(func() {
		select {
		case <-w.served:
		default:
			_ = cmd.Process.Kill()
			<-w.served
		}
		_ = inW.Close()
	})
	return w
}

// exitCode waits (up to timeout) for the subprocess to exit and returns
// its exit code, or -1 if it did not exit.
func (w *wire) exitCode(timeout time.Duration) int {
	select {
	case <-w.served:
		return w.proc.ProcessState.ExitCode()
	case <-time.After(timeout):
		return -1
	}
}

// reply is an answer a hostile row expects: the id's JSON text ("null"
// for none) and the error code (0: a result).
type reply struct {
	id   string
	code int
}

func (r reply) String() string { return fmt.Sprintf("%s:%d", r.id, r.code) }

const hostileDoc = "file:///test/hostile.weft"

func codeLensOf(id any, u string) map[string]any {
	return request(id, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": u}})
}

func cancelOf(params any) []byte {
	return jsonFrame(notification("$/cancelRequest", params))
}

func didOpenOf(u, text string) map[string]any {
	return notification("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": "weft", "version": 1, "text": text,
	}})
}

// TestHostileProtocol is the hostile-protocol table: each row, on a
// `weft lsp` subprocess (initialized, with a document open, unless the
// row says fresh), writes raw bytes and states every answer they must get
// (no answer for a notification), then sends a well-formed request (the
// probe: the lenses of a document) that must be answered within 10 s, so
// a session that stops answering (a zombie) fails the row; then it ends
// the session (exit, or the end of the input) and checks the exit code.
func TestHostileProtocol(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "model.weft")
	fifoErr := mkfifo(fifo)
	const text = "var x int\n\nthread t {\n    x = 1\n}\n"
	// A body cut short runs into the probe, all of it but its last 10
	// bytes: the probe is read again from its header.
	cut := `{"jsonrpc"`
	runsIntoProbe := "Content-Length: " + strconv.Itoa(len(cut)+len(probeFrameFor(hostileDoc))-10) + "\r\n\r\n" + cut

	tests := []struct {
		name  string
		fresh bool    // the session is not initialized and has no document
		send  []byte  // the raw bytes
		want  []reply // every answer they get, in any order
		probe string  // the document the probe asks about (default hostileDoc)
		code  int     // the probe's error code (0: it answers the lenses)
		quiet string  // no notification of the server may name this uri
		exit  string  // "exit": exit after the probe; "now": the bytes end the session; "eof": the input ends after them
		exitC int     // the exit code then
		skip  error   // the row cannot run: why
	}{
		// $/cancelRequest of every malformed shape: ignored, no answer, and
		// the session goes on.
		{name: "cancel, id null", send: cancelOf(map[string]any{"id": nil})},
		{name: "cancel, id an object", send: cancelOf(map[string]any{"id": map[string]any{"a": 1}})},
		{name: "cancel, id a float", send: cancelOf(map[string]any{"id": 1.5})},
		{name: "cancel, id a bool", send: cancelOf(map[string]any{"id": true})},
		{name: "cancel, id an array", send: cancelOf(map[string]any{"id": []int{1}})},
		{name: "cancel, no id", send: cancelOf(map[string]any{})},
		{name: "cancel, no params", send: cancelOf(nil)},
		{name: "cancel, params a string", send: cancelOf("7")},
		{name: "cancel, params an array", send: cancelOf([]int{7})},
		{name: "cancel of no request", send: cancelOf(map[string]any{"id": "none"})},
		{name: "cancel, many malformed", send: cat(cancelOf(nil), cancelOf(map[string]any{"id": 2.5}), cancelOf(map[string]any{"id": false}), cancelOf("x"))},

		// Not JSON: -32700, id null.
		{name: "invalid JSON", send: frame([]byte("{{{{")), want: []reply{{"null", -32700}}},
		{name: "truncated JSON", send: frame([]byte(`{"jsonrpc":"2.0","id":"t","method":"shutdown"`)), want: []reply{{"null", -32700}}},
		{name: "JSON and more", send: frame([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}} {}`)), want: []reply{{"null", -32700}}},

		// Batches: LSP has none; each request is answered -32600.
		{name: "batch of requests", send: jsonFrame([]any{codeLensOf("b1", hostileDoc), codeLensOf("b2", hostileDoc)}), want: []reply{{`"b1"`, -32600}, {`"b2"`, -32600}}},
		{name: "batch with a notification", send: jsonFrame([]any{notification("initialized", map[string]any{}), codeLensOf("b3", hostileDoc)}), want: []reply{{`"b3"`, -32600}}},
		{name: "batch of notifications", send: jsonFrame([]any{notification("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": hostileDoc}})})},
		{name: "empty batch", send: frame([]byte("[]")), want: []reply{{"null", -32600}}},
		{name: "batch of numbers", send: frame([]byte("[1,2]")), want: []reply{{"null", -32600}, {"null", -32600}}},

		// The "jsonrpc" member.
		{name: "no jsonrpc", send: frame([]byte(`{"id":"j1","method":"textDocument/codeLens","params":{"textDocument":{"uri":"` + hostileDoc + `"}}}`)), want: []reply{{`"j1"`, -32600}}},
		{name: "jsonrpc 1.0", send: frame([]byte(`{"jsonrpc":"1.0","id":"j2","method":"shutdown"}`)), want: []reply{{`"j2"`, -32600}}},
		{name: "jsonrpc a number", send: frame([]byte(`{"jsonrpc":2.0,"id":3,"method":"shutdown"}`)), want: []reply{{"3", -32600}}},
		// A notification without "jsonrpc" is not run: the document stays open.
		{name: "notification without jsonrpc", send: frame([]byte(`{"method":"textDocument/didClose","params":{"textDocument":{"uri":"` + hostileDoc + `"}}}`)), want: []reply{{"null", -32600}}},

		// Ids: strings and integers only; anything else -32600 with id null.
		{name: "id a float", send: frame([]byte(`{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}`)), want: []reply{{"null", -32600}}},
		{name: "id an exponent", send: frame([]byte(`{"jsonrpc":"2.0","id":1e3,"method":"shutdown"}`)), want: []reply{{"null", -32600}}},
		{name: "id an object", send: frame([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`)), want: []reply{{"null", -32600}}},
		{name: "id a bool", send: frame([]byte(`{"jsonrpc":"2.0","id":true,"method":"shutdown"}`)), want: []reply{{"null", -32600}}},
		{name: "id null", send: frame([]byte(`{"jsonrpc":"2.0","id":null,"method":"shutdown"}`)), want: []reply{{"null", -32600}}},
		{name: "id an integer past int64", send: frame([]byte(`{"jsonrpc":"2.0","id":99999999999999999999,"method":"shutdown"}`)), want: []reply{{"null", -32600}}},

		// Other shapes.
		{name: "method not a string", send: frame([]byte(`{"jsonrpc":"2.0","id":"m1","method":5}`)), want: []reply{{`"m1"`, -32600}}},
		{name: "method and result", send: frame([]byte(`{"jsonrpc":"2.0","id":"m2","method":"shutdown","result":1}`)), want: []reply{{`"m2"`, -32600}}},
		{name: "JSON null", send: frame([]byte("null")), want: []reply{{"null", -32600}}},
		{name: "JSON string", send: frame([]byte(`"x"`)), want: []reply{{"null", -32600}}},
		{name: "object, not JSON-RPC", send: frame([]byte(`{"jsonrpc":"2.0","foo":1}`)), want: []reply{{"null", -32600}}},
		{name: "response to no request", send: frame([]byte(`{"jsonrpc":"2.0","id":12345,"result":null}`))},
		{name: "error response with id null", send: frame([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`))},

		// Methods: unknown requests -32601, with params or without;
		// unknown notifications, $/ ones included, are ignored.
		{name: "unknown method", send: jsonFrame(request("u1", "weft/nothing", map[string]any{})), want: []reply{{`"u1"`, -32601}}},
		{name: "unknown method without params", send: jsonFrame(request("u2", "weft/nothing", nil)), want: []reply{{`"u2"`, -32601}}},
		{name: "unknown $/ request", send: jsonFrame(request("u3", "$/weftNothing", nil)), want: []reply{{`"u3"`, -32601}}},
		{name: "unknown notification", send: jsonFrame(notification("weft/nothing", nil))},
		{name: "unknown $/ notification", send: jsonFrame(notification("$/weftNothing", map[string]any{"a": 1}))},

		// Params of the wrong type: -32602 for a request, nothing for a
		// notification.
		{name: "params a string", send: jsonFrame(request("p1", "textDocument/codeLens", "x")), want: []reply{{`"p1"`, -32602}}},
		{name: "params a number", send: jsonFrame(request("p2", "textDocument/hover", 5)), want: []reply{{`"p2"`, -32602}}},
		{name: "uri a number", send: jsonFrame(request("p3", "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": 5}})), want: []reply{{`"p3"`, -32602}}},
		{name: "known method without params", send: jsonFrame(request("p4", "textDocument/codeLens", nil)), want: []reply{{`"p4"`, -32602}}},
		{name: "didChange of wrong types", send: jsonFrame(notification("textDocument/didChange", map[string]any{"textDocument": 1, "contentChanges": "x"}))},

		// Lifecycle.
		{name: "request before initialize", fresh: true, send: jsonFrame(codeLensOf("e1", hostileDoc)), want: []reply{{`"e1"`, -32002}}, code: -32002},
		{name: "initialize twice", send: jsonFrame(request("i2", "initialize", map[string]any{"capabilities": map[string]any{}})), want: []reply{{`"i2"`, -32600}}},
		{name: "request after shutdown", send: cat(jsonFrame(request("s1", "shutdown", nil)), jsonFrame(codeLensOf("s2", hostileDoc))), want: []reply{{`"s1"`, 0}, {`"s2"`, -32600}}, code: -32600, exit: "exit", exitC: 0},
		{name: "shutdown twice", send: cat(jsonFrame(request("s1", "shutdown", nil)), jsonFrame(request("s2", "shutdown", nil))), want: []reply{{`"s1"`, 0}, {`"s2"`, -32600}}, code: -32600, exit: "exit", exitC: 0},
		{name: "didOpen after shutdown starts nothing", send: cat(jsonFrame(request("s1", "shutdown", nil)), jsonFrame(didOpenOf("file:///test/late.weft", text))), want: []reply{{`"s1"`, 0}}, code: -32600, quiet: "file:///test/late.weft", exit: "exit", exitC: 0},
		{name: "exit without shutdown", send: jsonFrame(notification("exit", nil)), exit: "now", exitC: 1},

		// Documents whose uri is not a regular file: the text is didOpen's;
		// nothing reads the uri (a FIFO would block the reader, /dev/zero
		// never ends, /dev/stdin is the server's own input).
		{name: "didOpen of a FIFO", send: jsonFrame(didOpenOf("file://"+fifo, text)), probe: "file://" + fifo, skip: fifoErr},
		{name: "didOpen of /dev/zero", send: jsonFrame(didOpenOf("file:///dev/zero", text)), probe: "file:///dev/zero"},
		{name: "didOpen of /dev/stdin", send: jsonFrame(didOpenOf("file:///dev/stdin", text)), probe: "file:///dev/stdin"},

		// Framing.
		{name: "huge Content-Length", send: []byte("Content-Length: 1000000000000\r\n\r\n")},
		{name: "Content-Length over the limit", send: []byte("Content-Length: " + strconv.Itoa(maxFrame+1) + "\r\n\r\n")},
		// The body runs into the probe, which is read again.
		{name: "Content-Length larger than the body", send: []byte(runsIntoProbe), want: []reply{{"null", -32700}}},
		{name: "Content-Length smaller than the body", send: []byte("Content-Length: 5\r\n\r\n" + `{"jsonrpc":"2.0","method":"x"}`), want: []reply{{"null", -32700}}},
		{name: "Content-Length larger than the body, then EOF", send: []byte("Content-Length: 100\r\n\r\n{\"jsonrpc\""), exit: "eof", exitC: 1},
		{name: "huge Content-Length, then EOF", send: []byte("Content-Length: 1000000000000\r\n\r\n"), exit: "eof", exitC: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != nil {
				t.Skipf("cannot run: %v", tc.skip)
			}
			w := startWireProcess(t)
			if !tc.fresh {
				w.initialize(map[string]any{"idleDelayMs": 60000})
				if err := w.send(didOpenOf(hostileDoc, text)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.writeRaw(tc.send); err != nil {
				t.Fatalf("writing: %v", err)
			}
			switch tc.exit {
			case "now", "eof":
				if tc.exit == "eof" {
					_ = w.in.Close()
				}
				if code := w.exitCode(10 * time.Second); code != tc.exitC {
					t.Errorf("exit code %d, want %d (-1: it did not exit within 10 s)\nserver log:\n%s", code, tc.exitC, w.serverLog())
				}
				<-w.readDone
				checkReplies(t, w, tc.want)
				return
			}
			for _, r := range tc.want {
				if r.id != "null" {
					if _, ok := w.await(json.RawMessage(r.id), 10*time.Second); !ok {
						t.Errorf("no answer to %s within 10 s", r.id)
					}
				}
			}
			probe := tc.probe
			if probe == "" {
				probe = hostileDoc
			}
			if err := w.writeRaw(probeFrameFor(probe)); err != nil {
				t.Fatalf("writing the probe: %v", err)
			}
			r, ok := w.await("probe", 10*time.Second)
			switch {
			case !ok:
				t.Fatalf("the probe was not answered within 10 s: the session is stuck\nserver log:\n%s", w.serverLog())
			case tc.code != 0 && (r.Error == nil || r.Error.Code != tc.code):
				t.Errorf("the probe answered %s / %+v, want error %d", r.Result, r.Error, tc.code)
			case tc.code == 0:
				var lenses []json.RawMessage
				if r.Error != nil || json.Unmarshal(r.Result, &lenses) != nil || len(lenses) == 0 {
					t.Errorf("the probe answered %s / %+v, want the lenses", r.Result, r.Error)
				}
			}
			if tc.quiet != "" {
				time.Sleep(500 * time.Millisecond) // what a check would publish comes in milliseconds
				w.mu.Lock()
				for _, n := range w.notes {
					if strings.Contains(string(n.Params), tc.quiet) {
						t.Errorf("after shutdown the server sent %s about %s", n.Method, tc.quiet)
					}
				}
				w.mu.Unlock()
			}
			want := 0
			if tc.exit == "exit" {
				if err := w.send(notification("exit", nil)); err != nil {
					t.Fatal(err)
				}
				want = tc.exitC
			} else {
				_ = w.in.Close()
			}
			if code := w.exitCode(10 * time.Second); code != want {
				t.Errorf("exit code %d, want %d (-1: it did not exit within 10 s)", code, want)
			}
			<-w.readDone
			checkReplies(t, w, tc.want)
		})
	}
}

func probeFrameFor(u string) []byte { return jsonFrame(codeLensOf("probe", u)) }

// checkReplies checks that the answers of a session, but initialize's
// and the probe's, are want's, in any order.
func checkReplies(t *testing.T, w *wire, want []reply) {
	t.Helper()
	w.mu.Lock()
	var got []string
	for _, a := range w.answers {
		if a.ID == `"init"` || a.ID == `"probe"` {
			continue
		}
		code := 0
		if a.Error != nil {
			code = a.Error.Code
		}
		got = append(got, reply{a.ID, code}.String())
	}
	w.mu.Unlock()
	var wantS []string
	for _, r := range want {
		wantS = append(wantS, r.String())
	}
	slices.Sort(got)
	slices.Sort(wantS)
	if !slices.Equal(got, wantS) {
		t.Errorf("answers %v, want %v\nserver log:\n%s", got, wantS, w.serverLog())
	}
}

var errNoFIFO = errors.New("FIFOs are not supported on this system")

// A malformed $/cancelRequest while a request runs cancels nothing and
// ends nothing: the request is still running, a well-formed cancel then
// answers it -32800, and shutdown and exit end the session as usual.
func TestMalformedCancelInFlight(t *testing.T) {
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
	if err := w.send(didOpenOf(hostileDoc, "var c int\n")); err != nil {
		t.Fatal(err)
	}
	hover := map[string]any{"textDocument": map[string]any{"uri": hostileDoc}, "position": map[string]any{"line": 0, "character": 4}}
	if err := w.send(request(7, "textDocument/hover", hover)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the hover never reached the server")
	}
	for _, params := range []any{nil, "7", map[string]any{"id": nil}, map[string]any{"id": 7.0001}, map[string]any{"id": map[string]any{"id": 7}}, map[string]any{"id": []int{7}}, map[string]any{"id": true}} {
		if err := w.writeRaw(cancelOf(params)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.send(codeLensOf("lens", hostileDoc)); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("lens", 10*time.Second); !ok || r.Error != nil {
		t.Fatalf("codeLens after the malformed cancels: %v %+v", ok, r.Error)
	}
	if _, ok := w.await(7, 200*time.Millisecond); ok {
		t.Fatalf("a malformed cancel ended the hover")
	}
	if err := w.writeRaw(cancelOf(map[string]any{"id": 7})); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await(7, 10*time.Second); !ok || r.Error == nil || r.Error.Code != -32800 {
		t.Fatalf("cancelled hover answered %v %+v, want error -32800", ok, r.Error)
	}
	if err := w.send(request("bye", "shutdown", nil)); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.await("bye", 10*time.Second); !ok || r.Error != nil {
		t.Fatalf("shutdown: answered %v, %+v", ok, r.Error)
	}
	if err := w.send(notification("exit", nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.end(baseline); err != nil {
		t.Errorf("Serve after shutdown and exit: %v", err)
	}
}
