package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/internal/framing"
)

// FuzzMessages drives an in-process server with two inputs: ops, read as a
// script of well-framed messages (didOpen/didChange/didClose with
// positions out of range and versions going back, requests of known and
// random methods with random params, cancellations, settings, shutdown,
// exit; initialize first or not), and raw, bytes written to the wire as
// they are, between the first and the second half of the script. Then it
// checks that the server still answers a request (after padding the input
// so that a body the raw bytes left open is filled), that it ends when its
// input does, that everything it wrote was a well-formed frame, and that
// its goroutines are gone.
func FuzzMessages(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed.ops, seed.raw)
	}
	f.Fuzz(func(t *testing.T, ops, raw []byte) {
		if len(ops) > 4096 || len(raw) > 1<<16 {
			return // long inputs add nothing the short ones do not, and slow the fuzzer
		}
		fuzzSession(t, ops, raw)
	})
}

func fuzzSession(t *testing.T, ops, raw []byte) {
	start := time.Now()
	var phases []string
	phase := func(name string) {
		phases = append(phases, fmt.Sprintf("%s %v", name, time.Since(start).Round(time.Millisecond)))
	}
	defer func() {
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the session took %v: %v", d, phases)
		}
	}()
	baseline := runtime.NumGoroutine()
	w := startWire(t)
	s := &script{w: w, b: ops}
	if s.next()&1 == 0 {
		w.initialize(map[string]any{"idleDelayMs": int(s.next()) * 2, "quickBudgetMs": 50 + int(s.next())})
	}
	phase("initialized")
	half := len(s.b) / 2
	for len(s.b) > half && s.run() {
	}
	phase("first half")
	probe := true
	if len(raw) > 0 {
		_ = w.writeRaw(raw)
		// Fill a body the raw bytes may have left open, and end a header
		// line; a claimed length over what is cheap to fill skips the probe.
		claim := maxLengthClaim(raw)
		if claim > 1<<20 {
			probe = false
		} else {
			_ = w.writeRaw(bytes.Repeat([]byte("\n"), claim+2))
		}
	}
	phase("raw")
	for s.run() {
	}
	phase("second half")
	if probe {
		_ = w.send(request("probe", "shutdown", nil))
		if _, ok := w.await("probe", 20*time.Second); !ok {
			select {
			case <-w.served: // the session ended (an exit): nothing to answer
			default:
				t.Fatalf("no answer to a request within 20 s\nserver log:\n%.4000s\n%s", w.serverLog(), goroutines())
			}
		}
	}
	phase("probe")
	err := w.end(baseline)
	phase("end")
	if err != nil && !errors.Is(err, ErrExitWithoutShutdown) && !probe {
		return // the input ended inside a frame: Serve says so
	}
	if err != nil && !errors.Is(err, ErrExitWithoutShutdown) {
		t.Errorf("Serve: %v", err)
	}
}

// maxLengthClaim is the largest length a Content-Length header in b could
// claim, as the server reads headers (the name in any case, anywhere on a
// line, then a colon and a number); 0 when there is none.
func maxLengthClaim(b []byte) int {
	best := 0
	for _, line := range strings.Split(string(b), "\n") {
		for {
			i := framing.LengthHeaderAt(line)
			if i < 0 {
				break
			}
			_, value, _ := strings.Cut(line[i:], ":")
			if n, err := strconv.Atoi(strings.TrimSpace(value)); err == nil {
				best = max(best, n)
			} else if strings.TrimSpace(value) != "" && strings.Trim(strings.TrimSpace(value), "+0123456789") == "" {
				best = maxFrame + 1 // digits Atoi cannot hold: huge
			}
			line = line[i+1:]
		}
	}
	return best
}

// script turns fuzz bytes into messages; a byte past the end reads 0.
type script struct {
	w      *wire
	b      []byte
	nextID int
	paused time.Duration
}

// maxPauses bounds the pauses of a script.
const maxPauses = 250 * time.Millisecond

func (s *script) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *script) pick(n int) int { return int(s.next()) % n }

var fuzzURIs = []string{"file:///fuzz/a.weft", "file:///fuzz/b.weft", "untitled:Untitled-1", "file:///fuzz/%E2%9C%93.weft", "", "::not a uri"}

// fuzzSnippets are pieces of valid and invalid Weft, and text outside
// ASCII.
var fuzzSnippets = []string{
	"var x int\n", "var m mutex\n", "thread t {\n    x = x + 1\n}\n", "lock(m)\n", "unlock(m)\n", "}\n", "{", "assert x == 0\n",
	"// é😀 ünïcode\n", "thread w[i in 0..3] {\n", "\"unterminated", "spawn", "join t\n", "\x00\xff", "\r\n", "😀", "é",
	"if x > 0 {\n", "else", "for j in 0..1000000 {\n", "x[", "((((((((", "thread main {\n    assert false\n}\n",
	lostUpdateFixed, slowModel,
}

func (s *script) uri() any {
	c := s.next()
	if c == 255 {
		return 17 // not a string at all
	}
	return fuzzURIs[int(c)%len(fuzzURIs)]
}

func (s *script) text() string {
	var b strings.Builder
	for n := s.pick(4); n >= 0; n-- {
		if c := s.next(); c >= 200 {
			// Raw bytes from the input, as text (invalid UTF-8 included).
			k := min(int(c-200), len(s.b))
			b.Write(s.b[:k])
			s.b = s.b[k:]
		} else {
			b.WriteString(fuzzSnippets[int(c)%len(fuzzSnippets)])
		}
	}
	return b.String()
}

// number is a line, column or version: usually small, sometimes out of
// any range, negative, fractional or not a number.
func (s *script) number() any {
	switch c := s.next(); {
	case c < 200:
		return int(c) % 40
	case c < 220:
		return 1<<31 - 1 + int(c-200)
	case c < 235:
		return -int(c - 219)
	case c < 245:
		return 1.5
	case c < 250:
		return "3"
	default:
		return nil
	}
}

func (s *script) position() map[string]any {
	line := s.number()
	return map[string]any{"line": line, "character": s.number()}
}

func (s *script) doc() map[string]any {
	u := s.uri()
	return map[string]any{"uri": u, "version": s.number()}
}

// anyJSON is a random JSON value whose objects use the protocol's field
// names, so that it sometimes half-fits what a method expects.
func (s *script) anyJSON(depth int) any {
	keys := []string{"textDocument", "uri", "position", "line", "character", "range", "start", "end", "version", "text", "contentChanges", "command", "arguments", "settings", "weft", "token", "id", "capabilities", "context"}
	switch c := s.pick(8); {
	case c == 0 || depth > 3:
		return s.number()
	case c == 1:
		return s.text()
	case c == 2:
		return nil
	case c == 3:
		return s.next()&1 == 0
	case c == 4:
		var a []any
		for n := s.pick(3); n > 0; n-- {
			a = append(a, s.anyJSON(depth+1))
		}
		return a
	default:
		m := map[string]any{}
		for n := s.pick(4); n > 0; n-- {
			m[keys[s.pick(len(keys))]] = s.anyJSON(depth + 1)
		}
		return m
	}
}

var fuzzMethods = []string{
	"initialize", "initialized", "shutdown", "exit", "$/cancelRequest", "$/setTrace", "$/progress",
	"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave",
	"textDocument/hover", "textDocument/codeLens", "textDocument/formatting", "textDocument/definition",
	"textDocument/completion", "textDocument/semanticTokens/full", "workspace/executeCommand",
	"workspace/didChangeConfiguration", "window/workDoneProgress/cancel", "codeLens/resolve", "weft/status",
}

// id numbers requests, alternately as numbers and strings.
func (s *script) id() any {
	s.nextID++
	if s.nextID%2 == 1 {
		return s.nextID
	}
	return "r" + strconv.Itoa(s.nextID)
}

// run sends the next message of the script; false at its end or once the
// session is over.
func (s *script) run() bool {
	if len(s.b) == 0 {
		return false
	}
	var msg any
	switch s.pick(17) {
	case 0, 1:
		u := s.uri()
		version := s.number()
		msg = notification("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": u, "languageId": "weft", "version": version, "text": s.text(),
		}})
	case 2, 3, 4:
		doc := s.doc()
		var changes []any
		for n := s.pick(3); n >= 0; n-- {
			if s.next()%5 == 0 {
				changes = append(changes, map[string]any{"text": s.text()})
			} else {
				start := s.position()
				changes = append(changes, map[string]any{"range": map[string]any{"start": start, "end": s.position()}, "text": s.text()})
			}
		}
		msg = notification("textDocument/didChange", map[string]any{"textDocument": doc, "contentChanges": changes})
	case 5:
		msg = notification("textDocument/didClose", map[string]any{"textDocument": s.doc()})
	case 6:
		doc := s.doc()
		msg = request(s.id(), "textDocument/codeLens", map[string]any{"textDocument": doc})
	case 7:
		doc := s.doc()
		pos := s.position()
		msg = request(s.id(), "textDocument/hover", map[string]any{"textDocument": doc, "position": pos})
	case 8:
		doc := s.doc()
		msg = request(s.id(), "textDocument/formatting", map[string]any{"textDocument": doc, "options": map[string]any{"tabSize": 4, "insertSpaces": true}})
	case 9:
		cmds := append([]string{"weft.nothing", cmdShowStatus}, Commands...)
		cmd := cmds[s.pick(len(cmds))]
		var args []any
		for n := s.pick(3); n > 0; n-- {
			if c := s.next(); c&1 == 0 {
				args = append(args, fuzzURIs[int(c/2)%len(fuzzURIs)])
			} else {
				args = append(args, "bug-"+strconv.Itoa(int(c/2)%8))
			}
		}
		msg = request(s.id(), "workspace/executeCommand", map[string]any{"command": cmd, "arguments": args})
	case 10:
		method := fuzzMethods[s.pick(len(fuzzMethods))]
		if s.next()%4 == 0 {
			method = s.text()
		}
		if s.next()&1 == 0 {
			msg = request(s.id(), method, s.anyJSON(0))
		} else {
			msg = notification(method, s.anyJSON(0))
		}
	case 11:
		msg = notification("$/cancelRequest", map[string]any{"id": max(1, s.nextID-s.pick(3))})
	case 12:
		msg = notification("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"weft": map[string]any{
			"idleDelayMs": s.number(), "quickBudgetMs": s.number(), "maxConcurrent": s.number(), "escalate": s.next()&1 == 0,
			"escalationCeilingMs": s.number(), "bugKinds": []any{s.text()},
		}}})
	case 13:
		msg = request(s.id(), "initialize", map[string]any{"capabilities": map[string]any{
			"window":    map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{"codeLens": map[string]any{"refreshSupport": true}},
		}, "initializationOptions": map[string]any{"idleDelayMs": s.number(), "quickBudgetMs": 1 + s.pick(100)}})
	case 14:
		msg = notification("window/workDoneProgress/cancel", map[string]any{"token": fmt.Sprintf("weft-%d", s.pick(8))})
	case 15:
		switch s.pick(8) {
		case 0:
			msg = notification("exit", nil)
		case 1, 2:
			msg = request(s.id(), "shutdown", nil)
		default:
			msg = notification("initialized", map[string]any{})
		}
	case 16:
		// A pause (up to 50 ms), so that checks run between edits.
		if d := time.Duration(min(s.next(), 50)) * time.Millisecond; s.paused < maxPauses {
			time.Sleep(d)
			s.paused += d
		}
		return true
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return true // a value JSON cannot carry: skip it
	}
	if os.Getenv("WEFT_FUZZ_TRACE") != "" { // to see what a failing input sends
		s.w.t.Logf("send %.300s", body)
	}
	return s.w.writeRaw(frame(body)) == nil
}

type fuzzSeed struct{ ops, raw []byte }

// seedScript writes scripts for the corpus, byte by byte as script.run
// reads them.
type seedScript []byte

const (
	uriA, uriB, uriUntitled = 0, 1, 2
	// Snippets (indexes in fuzzSnippets).
	snipVar, snipThread, snipComment, snipAssertFalse, snipSlow = 0, 2, 8, 22, 24
)

func (b seedScript) initialize(idle, budget byte) seedScript { return append(b, 0, idle, budget) }
func (b seedScript) noInitialize() seedScript                { return append(b, 1) }
func (b seedScript) open(uri, version byte, snippets ...byte) seedScript {
	return append(append(b, 0, uri, version), text(snippets...)...)
}

// edit replaces a range (lines and columns as script.number reads them).
func (b seedScript) edit(uri, version, l1, c1, l2, c2 byte, snippets ...byte) seedScript {
	return append(append(b, 2, uri, version, 0, 1, l1, c1, l2, c2), text(snippets...)...)
}
func (b seedScript) replace(uri, version byte, snippets ...byte) seedScript {
	return append(append(b, 2, uri, version, 0, 0), text(snippets...)...)
}
func (b seedScript) close(uri byte) seedScript  { return append(b, 5, uri, 1) }
func (b seedScript) lenses(uri byte) seedScript { return append(b, 6, uri, 1) }
func (b seedScript) hover(uri, line, col byte) seedScript {
	return append(b, 7, uri, 1, line, col)
}
func (b seedScript) format(uri byte) seedScript { return append(b, 8, uri, 1) }

// command runs Commands[i] (or, for i = 6, 7: weft.nothing,
// weft.showStatus) on uri and bug-<bug>.
func (b seedScript) command(i int, uri, bug byte) seedScript {
	return append(b, 9, byte((i+2)%8), 2, 2*uri, 2*bug+1)
}
func (b seedScript) random(method byte, params ...byte) seedScript {
	return append(append(b, 10, method, 1, 0), params...)
}
func (b seedScript) cancel(back byte) seedScript { return append(b, 11, back) }
func (b seedScript) settings(idle, budget, conc, ceiling byte) seedScript {
	return append(append(b, 12, idle, budget, conc, 0, ceiling), text(snipVar)...)
}
func (b seedScript) progressCancel(k byte) seedScript { return append(b, 14, k) }
func (b seedScript) shutdown() seedScript             { return append(b, 15, 1) }
func (b seedScript) exit() seedScript                 { return append(b, 15, 0) }
func (b seedScript) pause(ms byte) seedScript         { return append(b, 16, ms) }

func text(snippets ...byte) []byte {
	if len(snippets) == 0 {
		snippets = []byte{snipVar}
	}
	return append([]byte{byte(len(snippets) - 1)}, snippets...)
}

// fuzzSeeds are the corpus: scripts that open models, edit them out of
// range and backwards, and ask for everything; and raw bytes of each
// hostile kind TestGarbage names.
func fuzzSeeds() []fuzzSeed {
	var s seedScript
	seeds := []fuzzSeed{
		// A check that runs long, edited (a comment outside ASCII; then a
		// range past the end, with the version going back), stopped,
		// restarted, closed.
		{ops: s.initialize(0, 0).open(uriA, 1, snipSlow).pause(50).edit(uriA, 2, 0, 0, 0, 0, snipComment).pause(30).lenses(uriA).
			edit(uriA, 1, 39, 39, 210, 210, snipThread).hover(uriA, 3, 5).command(3, uriA, 0).command(2, uriA, 0).close(uriA)},
		// A bug found at once: its lenses, trace and replay (of a right
		// and a wrong id), a whole-text replacement, formatting.
		{ops: s.initialize(0, 0).open(uriB, 1, snipAssertFalse).pause(50).lenses(uriB).command(0, uriB, 1).command(1, uriB, 7).
			replace(uriB, 0, snipVar, snipThread).format(uriB).lenses(uriB)},
		// Everything before initialize, then initialize.
		{ops: s.noInitialize().lenses(uriA).open(uriA, 1, snipVar).hover(uriA, 0, 0).shutdown()},
		// Methods at random, settings, cancellations, shutdown, exit.
		{ops: s.initialize(10, 10).open(uriUntitled, 3, snipThread, snipComment).random(0, 5, 1).random(12, 0).
			settings(0, 1, 200, 1).cancel(0).progressCancel(1).shutdown().lenses(uriUntitled).exit()},
	}
	open := s.initialize(100, 0).open(uriA, 1, snipVar, snipThread).lenses(uriA)
	for _, raw := range []string{
		"garbage\r\n\r\n", "Content-Length: abc\r\n\r\n", "Content-Length: -5\r\n\r\n", "Content-Length: 0\r\n\r\n",
		"Content-Length: 99999999999999999999999\r\n\r\n", "Content-Type: x\r\n\r\n", "xyz",
		"Content-Length: 5\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", "Content-Length: 300\r\n\r\n{",
		"Content-Length: 4\r\n\r\n{{{{", "Content-Length: 5\r\n\r\n[1,2]", "Content-Length: 1000000000000\r\n\r\n",
		`Content-Length: 49` + "\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"textDocument/x"}`,
		`Content-Length: 60` + "\r\n\r\n" + `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":5}`,
	} {
		seeds = append(seeds, fuzzSeed{ops: open.lenses(uriA), raw: []byte(raw)})
	}
	return seeds
}
