package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// wire is a session with a server running in this process (so that the
// race detector sees it), driven byte by byte: what the test writes is
// exactly what the server reads, garbage included. It answers the
// server's requests (null), checks that everything the server writes is a
// well-formed JSON-RPC frame, and records the responses by id.
type wire struct {
	t  testing.TB
	in io.WriteCloser // an *io.PipeWriter, or a subprocess's stdin

	writeMu sync.Mutex // one frame at a time on the server's input

	served   chan struct{} // Serve returned (the subprocess exited)
	proc     *exec.Cmd     // the subprocess (startWireProcess), or nil
	serveErr error         // valid once served is closed
	readDone chan struct{} // the server's output ended

	mu        sync.Mutex
	changed   chan struct{}
	responses map[string]wireResponse // by the id's JSON text
	answers   []wireAnswer            // every response, in order
	notes     []wireMessage           // the server's notifications, in order
	requests  int                     // the server's requests to the client
	sequence  []string                // what the server wrote, in order: "request METHOD", "answer ID", "note METHOD"
	// holdRequests: the server's requests are never answered (a client
	// that is slow, or does not answer).
	holdRequests bool
	badOutput    []string     // frames the server wrote that are not JSON-RPC
	stuck        string       // the goroutines when a write could not complete
	log          bytes.Buffer // the server's own log
}

// lspError is a JSON-RPC error as a client reads it.
type lspError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type wireResponse struct {
	Result json.RawMessage
	Error  *lspError
}

// wireAnswer is a response with its id's JSON text.
type wireAnswer struct {
	ID string
	wireResponse
}

// wireMessage is any JSON-RPC message, as the test reads what the server
// writes.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *lspError       `json:"error"`
}

type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

type wireLog struct{ w *wire }

func (l wireLog) Write(p []byte) (int, error) {
	l.w.mu.Lock()
	defer l.w.mu.Unlock()
	if l.w.log.Len() < 1<<20 {
		l.w.log.Write(p)
	}
	return len(p), nil
}

// startWire runs Serve over pipes.
func startWire(t testing.TB) *wire { return startWireWith(t, Options{}) }

// startWireWith runs Serve over pipes with opts (its Log and Version are
// the harness's).
func startWireWith(t testing.TB, opts Options) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{
		t: t, in: inW,
		served: make(chan struct{}), readDone: make(chan struct{}),
		changed: make(chan struct{}), responses: map[string]wireResponse{},
	}
	go func() {
		opts.Log, opts.Version = wireLog{w}, "test"
		w.serveErr = Serve(context.Background(), inR, outW, closers{inR, outW}, opts)
		close(w.served)
	}()
	go w.readOutput(outR)
	return w
}

// readOutput reads the server's frames until its output closes.
func (w *wire) readOutput(out io.ReadCloser) {
	defer close(w.readDone)
	defer out.Close()
	r := bufio.NewReader(out)
	for {
		n, err := readFrameHeader(r)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.record(func() { w.badOutput = append(w.badOutput, "header: "+err.Error()) })
			}
			_, _ = io.Copy(io.Discard, r) // never block the server
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			w.record(func() { w.badOutput = append(w.badOutput, "truncated body") })
			return
		}
		var m wireMessage
		if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" {
			w.record(func() { w.badOutput = append(w.badOutput, fmt.Sprintf("%.200q (%v)", body, err)) })
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			// A request of the server (codeLens/refresh, progress/create):
			// answer it, from another goroutine, as a client would; the
			// test may be in the middle of writing a long frame.
			w.record(func() { w.requests++; w.sequence = append(w.sequence, "request "+m.Method) })
			id := append(json.RawMessage(nil), m.ID...)
			w.mu.Lock()
			hold := w.holdRequests
			w.mu.Unlock()
			if hold {
				continue
			}
			go func() { _ = w.writeRaw(frame([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":null}`))) }()
		case m.Method == "":
			r := wireResponse{Result: m.Result, Error: m.Error}
			w.record(func() {
				w.responses[string(m.ID)] = r
				w.answers = append(w.answers, wireAnswer{ID: string(m.ID), wireResponse: r})
				w.sequence = append(w.sequence, "answer "+string(m.ID))
			})
		default:
			w.record(func() { w.notes = append(w.notes, m); w.sequence = append(w.sequence, "note "+m.Method) })
		}
	}
}

// readFrameHeader reads a header as the server writes it.
func readFrameHeader(r *bufio.Reader) (int, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if line == "" && length < 0 {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("%q: %w", line, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if length < 0 {
				return 0, errors.New("no Content-Length")
			}
			return length, nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(name, "Content-Length") {
			return 0, fmt.Errorf("header line %q", line)
		}
		if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
			return 0, fmt.Errorf("header line %q", line)
		}
	}
}

func (w *wire) record(f func()) {
	w.mu.Lock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// frame puts a Content-Length header on body.
func frame(body []byte) []byte {
	return append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
}

// writeTimeout bounds a write to the server's input: the server reads
// its input all the time (edits are quick, requests run aside), so a
// write that does not complete means the server is stuck.
const writeTimeout = 20 * time.Second

// writeRaw writes bytes to the server's input as they are. A write that
// takes over writeTimeout fails the test with the goroutines' stacks.
func (w *wire) writeRaw(b []byte) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	stuck := time.AfterFunc(writeTimeout, func() {
		w.record(func() { w.stuck = goroutines() })
		if p, ok := w.in.(*io.PipeWriter); ok {
			_ = p.CloseWithError(errors.New("the server stopped reading its input"))
		} else {
			_ = w.in.Close()
		}
	})
	defer stuck.Stop()
	_, err := w.in.Write(b)
	return err
}

// send frames a message (anything json.Marshal takes) and writes it.
func (w *wire) send(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		w.t.Fatalf("marshal %v: %v", msg, err)
	}
	return w.writeRaw(frame(body))
}

func request(id any, method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

func notification(method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

// await waits until the response to id (a string or number, as sent)
// arrives, the session ends, or the timeout passes.
func (w *wire) await(id any, timeout time.Duration) (wireResponse, bool) {
	key, _ := json.Marshal(id)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		w.mu.Lock()
		r, ok := w.responses[string(key)]
		ch := w.changed
		w.mu.Unlock()
		if ok {
			return r, true
		}
		select {
		case <-ch:
		case <-w.served:
			// Answers written before Serve returned may still be in the pipe.
			select {
			case <-w.readDone:
			case <-time.After(time.Second):
			}
			w.mu.Lock()
			r, ok := w.responses[string(key)]
			w.mu.Unlock()
			return r, ok
		case <-deadline.C:
			return wireResponse{}, false
		}
	}
}

// initialize initializes the session with opts (nil: none) and waits for
// the answer.
func (w *wire) initialize(opts map[string]any) {
	w.t.Helper()
	params := map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}
	if opts != nil {
		params["initializationOptions"] = opts
	}
	if err := w.send(request("init", "initialize", params)); err != nil {
		w.t.Fatalf("initialize: %v", err)
	}
	r, ok := w.await("init", 10*time.Second)
	if !ok || r.Error != nil {
		w.t.Fatalf("initialize: answered %v, error %+v", ok, r.Error)
	}
	if err := w.send(notification("initialized", map[string]any{})); err != nil {
		w.t.Fatalf("initialized: %v", err)
	}
}

// end closes the server's input and checks that the session ends: Serve
// returns, its output closes, nothing it wrote was malformed, and the
// goroutines go back to the count before the session (baseline). It
// returns Serve's error.
func (w *wire) end(baseline int) error {
	w.t.Helper()
	_ = w.in.Close()
	select {
	case <-w.served:
	case <-time.After(10 * time.Second):
		w.t.Fatalf("Serve did not return within 10 s of the end of its input\n%s", goroutines())
	}
	select {
	case <-w.readDone:
	case <-time.After(10 * time.Second):
		w.t.Fatalf("the server's output was not closed within 10 s of Serve's return\n%s", goroutines())
	}
	w.mu.Lock()
	bad, stuck := w.badOutput, w.stuck
	w.mu.Unlock()
	if stuck != "" {
		w.t.Errorf("the server stopped reading its input for %v; goroutines then:\n%s", writeTimeout, stuck)
	}
	if len(bad) > 0 {
		w.t.Errorf("the server wrote %d malformed frames: %q", len(bad), bad[:min(len(bad), 3)])
	}
	waitGoroutines(w.t, baseline)
	return w.serveErr
}

// waitGoroutines waits (up to 10 s) until no more goroutines run than
// baseline.
func waitGoroutines(t testing.TB, baseline int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 10 s after the session ended, %d before it:\n%s", n, baseline, goroutines())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func goroutines() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

func (w *wire) serverLog() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}
