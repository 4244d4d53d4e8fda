package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"weft/engine"
	"weft/internal/testmodels"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine/ir"
	"weft/internal/z3"
	"weft/internal/z3/z3test"
	"weft/replay"
)

// What the client is shown: verdicts that name their assumptions, nothing
// of an older version, custom notifications only to the clients that ask
// for them, and a counterexample any client can see.

// A verdict names what it rests on, and a verdict resting on the
// no-overflow assumption is followed, while escalation may go on, by a
// check without it, which finds the overflows.
func TestVerdictAssumptions(t *testing.T) {
	for _, c := range []struct {
		name        string
		src         string
		opts        map[string]any
		needZ3      bool
		state       string
		assumptions []string
		words       string // in the message (the lens)
		codes       []string
	}{
		{"no overflow assumed, no escalation", testmodels.Overflow, map[string]any{"assumeNoOverflow": true, "escalate": false}, true,
			stateVerified, []string{"no-overflow"}, "✓ Verified, assuming no overflow: 1 execution, cdpor", nil},
		{"no overflow assumed, escalation finds the overflows", testmodels.Overflow, map[string]any{"assumeNoOverflow": true}, true,
			stateBugs, nil, "2 bugs (exploration complete", []string{"runtime-error", "runtime-error"}},
		{"default settings", testmodels.Overflow, map[string]any{"escalate": false}, false,
			stateBugs, nil, "2 bugs", []string{"runtime-error", "runtime-error"}},
		{"no spurious wake-ups", testmodels.CondIfWait, map[string]any{"escalate": false}, false,
			stateVerified, []string{"no-spurious-wakeups"}, "✓ Verified, assuming no spurious wake-ups:", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needZ3 {
				if err := z3.Available(z3.Config{}); err != nil {
					z3test.Missing(t, "the no-overflow conditions come from z3: %v", err)
				}
			}
			cl := startServer(t, c.opts)
			u := cl.open("model.weft", c.src)
			var st status
			cl.waitFor("a final status", 60*time.Second, func() bool {
				st, _ = cl.latestStatus(u)
				return st.State == c.state && (st.State != stateBugs || st.Complete)
			})
			if !slices.Equal(st.Assumptions, c.assumptions) {
				t.Errorf("assumptions %q, want %q", st.Assumptions, c.assumptions)
			}
			if !strings.Contains(st.Message, c.words) {
				t.Errorf("message %q, want it to contain %q", st.Message, c.words)
			}
			lenses := codeLensTitles(t, cl, u)
			if len(lenses) == 0 || lenses[0] != st.Message {
				t.Errorf("lenses %q: want the status %q first", lenses, st.Message)
			}
			cl.mu.Lock()
			pd, _ := cl.latestDiags(u)
			cl.mu.Unlock()
			var codes []string
			for _, d := range pd.diags {
				codes = append(codes, codeOf(d))
			}
			if !slices.Equal(codes, c.codes) {
				t.Errorf("diagnostics %q, want %q", codes, c.codes)
			}
		})
	}
}

func codeLenses(t *testing.T, cl *testClient, u uri.URI) []protocol.CodeLens {
	t.Helper()
	ls, err := cl.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatalf("codeLens: %v", err)
	}
	return ls
}

func codeLensTitles(t *testing.T, cl *testClient, u uri.URI) []string {
	t.Helper()
	var out []string
	for _, l := range codeLenses(t, cl, u) {
		out = append(out, l.Command.Title)
	}
	return out
}

// After an edit, the code lenses answered before the new version's check
// reports show nothing of the old version, and the client is asked to
// drop the lenses and inlay hints it shows.
func TestNoStaleLenses(t *testing.T) {
	src := readExample(t, "lost_update.weft")
	// The quiet period keeps the new version's check from reporting
	// before the lenses are asked for.
	cl := startServer(t, map[string]any{"idleDelayMs": 2000, "escalate": false})
	u := cl.open("lost_update.weft", src)
	cl.waitFor("the bugs", 30*time.Second, func() bool {
		st, _ := cl.latestStatus(u)
		return st.State == stateBugs && st.Complete
	})
	before := codeLensTitles(t, cl, u)
	if !slices.ContainsFunc(before, func(s string) bool { return strings.HasPrefix(s, "Replay: ") }) {
		t.Fatalf("lenses before the edit %q: want the replays", before)
	}
	cl.mu.Lock()
	lensRefreshes, inlayRefreshes := cl.refreshes, cl.inlayRefreshes
	cl.mu.Unlock()

	cl.change(u, 2, whole("// edited\n"+src))
	after := codeLensTitles(t, cl, u)
	for _, title := range after {
		if strings.Contains(title, "bug") || strings.HasPrefix(title, "Replay") || strings.Contains(title, "complete") {
			t.Errorf("after the edit, lens %q is of the old version (all: %q)", title, after)
		}
	}
	if len(after) == 0 || !strings.HasPrefix(after[0], "Checking") {
		t.Errorf("lenses after the edit %q: want a Checking… status first", after)
	}
	cl.waitFor("codeLens and inlayHint refreshes after the edit", 5*time.Second, func() bool {
		return cl.refreshes > lensRefreshes && cl.inlayRefreshes > inlayRefreshes
	})
}

// The progress of an escalated check names the mode the check runs, as
// its status and lens do (the first escalated check of Pi runs cdpor,
// though the escalation's mode is optimal).
func TestProgressNamesTheMode(t *testing.T) {
	piModel(t) // skips without z3
	pi, err := os.ReadFile("../benchmarks/cdpor/pi_7.weft")
	if err != nil {
		t.Fatal(err)
	}
	// A quick check too short to finish (or to wait for the constraints).
	cl := startServer(t, map[string]any{"quickBudgetMs": 1})
	u := cl.open("pi_7.weft", string(pi))
	var st status
	cl.waitFor("a complete check", 60*time.Second, func() bool {
		st, _ = cl.latestStatus(u)
		return st.State == stateVerified
	})
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var titles []string
	for _, p := range cl.progress {
		var v struct {
			Kind, Title string
		}
		if json.Unmarshal([]byte(p), &v) == nil && v.Kind == "begin" {
			titles = append(titles, v.Title)
		}
	}
	if len(titles) == 0 || !strings.Contains(titles[len(titles)-1], "Weft: "+algoWords(st.Algorithm, st.K)+" check") {
		t.Errorf("progress titles %q; the check that completed ran %s", titles, algoWords(st.Algorithm, st.K))
	}
}

// Custom notifications go only to clients that opt in.
func TestCustomNotificationsOptIn(t *testing.T) {
	src := readExample(t, "lost_update.weft")
	for _, c := range []struct {
		name   string
		cfg    clientConfig
		custom bool
	}{
		{"opted in", clientConfig{}, true},
		{"not opted in", clientConfig{noWeftStatus: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := startServerWith(t, map[string]any{"escalate": false}, c.cfg)
			u := cl.open("lost_update.weft", src)
			cl.waitFor("the assertion's diagnostic", 30*time.Second, func() bool {
				pd, ok := cl.latestDiags(u)
				return ok && hasCode(pd.diags, "assertion")
			})
			// The final status follows the diagnostics closely.
			time.Sleep(500 * time.Millisecond)
			cl.mu.Lock()
			n := cl.custom
			cl.mu.Unlock()
			if got := n > 0; got != c.custom {
				t.Errorf("%d custom notifications, want some: %v", n, c.custom)
			}
			// The status lens's command shows the status to a client
			// that does not get weft/status.
			if _, err := cl.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdShowStatus, Arguments: []protocol.LSPAny{rawJSON(string(u))}}); err != nil {
				t.Fatal(err)
			}
			if !c.custom {
				cl.waitFor("the status as a message", 5*time.Second, func() bool {
					return slices.ContainsFunc(cl.shownMessages, func(m string) bool { return strings.Contains(m, "2 bugs") })
				})
				return
			}
			cl.mu.Lock()
			shown := cl.shownMessages
			cl.mu.Unlock()
			if len(shown) > 0 {
				t.Errorf("a client that shows weft/status got the status as a message too: %q", shown)
			}
		})
	}
}

// weft.replay (a lens, or the code action on a bug's diagnostic), for a
// client that does not replay counterexamples itself, writes the trace as
// text and asks the client to show it; or, when it cannot, says where it
// is and how it begins.
func TestReplayShownToAnyClient(t *testing.T) {
	src := readExample(t, "lost_update.weft")
	for _, c := range []struct {
		name        string
		cfg         clientConfig
		showDoc     bool
		showMessage bool
	}{
		{"showDocument", clientConfig{noWeftReplay: true, showDocument: true}, true, false},
		{"no showDocument", clientConfig{noWeftReplay: true}, false, true},
		{"the client replays itself", clientConfig{showDocument: true}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache := t.TempDir()
			c.cfg.env = []string{"XDG_CACHE_HOME=" + cache}
			cl := startServerWith(t, map[string]any{"escalate": false}, c.cfg)
			u := cl.open("lost_update.weft", src)
			cl.waitFor("the assertion's diagnostic", 30*time.Second, func() bool {
				pd, ok := cl.latestDiags(u)
				return ok && hasCode(pd.diags, "assertion")
			})
			cl.mu.Lock()
			pd, _ := cl.latestDiags(u)
			cl.mu.Unlock()
			var assertion protocol.Diagnostic
			for _, d := range pd.diags {
				if codeOf(d) == "assertion" {
					assertion = d
				}
			}
			// The code action on the diagnostic runs weft.replay.
			acts, err := cl.server.CodeAction(context.Background(), &protocol.CodeActionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: u},
				Range:        protocol.Range{Start: assertion.Range.Start, End: assertion.Range.Start},
				Context:      protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{assertion}},
			})
			if err != nil || len(acts) != 1 {
				t.Fatalf("codeAction: %v, %d actions; want one", err, len(acts))
			}
			act, ok := acts[0].(*protocol.CodeAction)
			if !ok || !strings.HasPrefix(act.Title, "Show counterexample (") || act.Command.Command != cmdReplay {
				t.Fatalf("code action %+v: want Show counterexample running %s", acts[0], cmdReplay)
			}
			if _, err := cl.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: act.Command.Command, Arguments: act.Command.Arguments}); err != nil {
				t.Fatalf("%s: %v", cmdReplay, err)
			}
			if c.showDoc || c.showMessage {
				cl.waitFor("the counterexample shown", 10*time.Second, func() bool {
					return len(cl.showDocs) > 0 || len(cl.shownMessages) > 0
				})
			} else {
				time.Sleep(500 * time.Millisecond)
			}
			cl.mu.Lock()
			docs, msgs := cl.showDocs, cl.shownMessages
			cl.mu.Unlock()
			if (len(docs) > 0) != c.showDoc || (len(msgs) > 0) != c.showMessage {
				t.Fatalf("showDocument %v, showMessage %q; want showDocument %v, showMessage %v", docs, msgs, c.showDoc, c.showMessage)
			}
			var path string
			switch {
			case c.showDoc:
				path = docs[0].URI.FsPath()
			case c.showMessage:
				if !strings.Contains(msgs[0], "replaying assertion: an increment was lost") {
					t.Errorf("showMessage %q does not quote the trace", msgs[0])
				}
				first, _, _ := strings.Cut(msgs[0], "\n")
				path = strings.TrimPrefix(first, "weft: the counterexample is in ")
			default:
				return
			}
			if !strings.HasPrefix(path, cache) {
				t.Errorf("the counterexample is at %s, not under the cache directory %s", path, cache)
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"replaying assertion: an increment was lost at lost_update.weft:", "\nstep 1  incr[", "  shared: c = ", "\nassertion: an increment was lost\n"} {
				if !strings.Contains(string(text), want) {
					t.Errorf("the counterexample lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// The replay directory keeps at most maxReplayFiles counterexamples:
// writing one removes the oldest, never the one just written.
func TestReplayDirBounded(t *testing.T) {
	for _, c := range []struct {
		name     string
		existing int // counterexamples there before the new one
	}{
		{"under the bound", 3},
		{"at the bound", maxReplayFiles - 1},
		{"past the bound", maxReplayFiles + 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			old := time.Now().Add(-time.Hour)
			for i := range c.existing {
				p := filepath.Join(dir, fmt.Sprintf("old-%d.replay.txt", i))
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				_ = os.Chtimes(p, old, old.Add(time.Duration(i)*time.Second))
			}
			other := filepath.Join(dir, "notes.txt") // not a counterexample: kept
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			keep := filepath.Join(dir, "new.replay.txt")
			if err := os.WriteFile(keep, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			pruneReplays(dir, keep)
			files, _ := filepath.Glob(filepath.Join(dir, "*.replay.txt"))
			if want := min(c.existing+1, maxReplayFiles); len(files) != want {
				t.Errorf("%d counterexamples left, want %d", len(files), want)
			}
			for _, p := range []string{keep, other} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s was removed", filepath.Base(p))
				}
			}
			if c.existing+1 > maxReplayFiles {
				if _, err := os.Stat(filepath.Join(dir, "old-0.replay.txt")); err == nil {
					t.Errorf("the oldest counterexample is still there")
				}
			}
		})
	}
}

// Inlay hints come from the latest text or not at all: when its analysis
// is not done in time the answer is empty (and the client is asked
// again once it is), never the older version's hints.
func TestInlayHintsNeverStale(t *testing.T) {
	const text = "const N = 2\nvar a [N * 2]int\n"
	for _, c := range []struct {
		name     string
		version  int32 // the document's; the snapshot is version 1
		hints    bool
		withheld bool
	}{
		{"the snapshot is the latest", 1, true, false},
		{"a newer version is not analysed yet", 2, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			u := uri.URI("file:///test/hints.weft")
			s := &Server{ctx: ctx, docs: map[uri.URI]*document{}}
			d := &document{s: s, uri: u, ctx: ctx, version: c.version, snap: newSnapshot(ctx, "hints.weft", 1, []byte(text))}
			s.docs[u] = d
			hints, err := s.InlayHint(ctx, &protocol.InlayHintParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: u},
				Range:        protocol.Range{End: protocol.Position{Line: 3}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(hints) > 0; got != c.hints {
				t.Errorf("%d hints, want some: %v", len(hints), c.hints)
			}
			if d.hintsWithheld != c.withheld {
				t.Errorf("hints withheld %v, want %v", d.hintsWithheld, c.withheld)
			}
		})
	}
}

// withoutNoOverflow drops exactly the conditions that hold only where
// nothing overflows, keeping the others, W and RaceFree.
func TestWithoutNoOverflow(t *testing.T) {
	a, b, c := ir.Site{Body: 0, PC: 1}, ir.Site{Body: 1, PC: 1}, ir.Site{Body: 2, PC: 1}
	rule := ir.Constraint{Origin: "rule: index", Text: "i != other.i"}
	smt := ir.Constraint{Origin: "smt", Text: "x == 0"}
	nov := ir.Constraint{Origin: ir.OriginSMTNoOverflow, Text: "true"}
	cs := &ir.Constraints{RaceFree: true, Writes: map[ir.Site][]ir.LocRange{a: nil}}
	cs.Add(a, b, rule)
	cs.Add(a, b, nov)
	cs.Add(a, c, nov)
	cs.Add(b, c, smt)
	got := withoutNoOverflow(cs)
	for _, tc := range []struct {
		pair [2]ir.Site
		want []string
	}{
		{[2]ir.Site{a, b}, []string{"i != other.i"}},
		{[2]ir.Site{a, c}, nil},
		{[2]ir.Site{b, c}, []string{"x == 0"}},
	} {
		var texts []string
		for _, c := range got.Pairs[tc.pair] {
			texts = append(texts, c.Text)
		}
		if !slices.Equal(texts, tc.want) {
			t.Errorf("pair %v: %q, want %q", tc.pair, texts, tc.want)
		}
	}
	if !got.RaceFree || len(got.Writes) != 1 {
		t.Errorf("RaceFree %v, %d sites in W: want them kept", got.RaceFree, len(got.Writes))
	}
	if len(cs.Pairs[[2]ir.Site{a, b}]) != 2 {
		t.Errorf("the constraints given were changed")
	}
	if withoutNoOverflow(nil) != nil {
		t.Errorf("nil constraints gave some")
	}
}

// A check without the no-overflow assumption that runs out of budget
// ends incomplete, and its status keeps what the earlier check found
// under the assumption (it is not "verified", nor is it lost).
func TestAssumedVerdictKeptWhenIncomplete(t *testing.T) {
	piModel(t) // skips without z3
	pi, err := os.ReadFile("../benchmarks/cdpor/pi_7.weft")
	if err != nil {
		t.Fatal(err)
	}
	// One escalated check, of 1 ms: too short for Pi(7)'s 5,040
	// executions without the assumption.
	cl := startServer(t, map[string]any{"assumeNoOverflow": true, "escalationCeilingMs": 1})
	u := cl.open("pi_7.weft", string(pi))
	var st status
	cl.waitFor("the final status", 60*time.Second, func() bool {
		st, _ = cl.latestStatus(u)
		return st.State == stateIncomplete || st.State == stateVerified
	})
	if st.State != stateIncomplete {
		t.Fatalf("status %s %q: want the check without the assumption incomplete", st.State, st.Message)
	}
	if st.Stopped != engine.StoppedTimeout {
		t.Errorf("stopped %q, want the engine's name of the reason, %q", st.Stopped, engine.StoppedTimeout)
	}
	want := "an earlier check: verified, assuming no overflow (1 execution, cdpor)"
	if st.Earlier != "verified, assuming no overflow (1 execution, cdpor)" || !strings.HasSuffix(st.Message, want) {
		t.Errorf("earlier %q, message %q; want the message to end with %q", st.Earlier, st.Message, want)
	}
	if len(st.Assumptions) != 0 {
		t.Errorf("assumptions %q of a check that ran without them", st.Assumptions)
	}
}

// Two servers (two editors) write their counterexamples into the one
// replay directory, and their counters of versions and bugs both start
// at 1: two models named alike (or one model's two texts) must not share
// a file, or a client would open the other one's trace. A file's name
// is the same only for the same text.
func TestReplayFilesApart(t *testing.T) {
	dir := t.TempDir()
	doc := func(msg string) *replay.Document {
		return &replay.Document{Kind: "assertion", Message: msg, Version: 1, BugID: "bug-1"}
	}
	p1, text1, err := writeReplay(dir, "lost_update.weft", doc("an increment was lost"))
	if err != nil {
		t.Fatal(err)
	}
	p2, text2, err := writeReplay(dir, "lost_update.weft", doc("the counter went negative"))
	if err != nil {
		t.Fatal(err)
	}
	if p1 == p2 {
		t.Errorf("two different counterexamples both written to %s", p1)
	}
	for _, f := range []struct {
		path string
		text []byte
	}{{p1, text1}, {p2, text2}} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.text) {
			t.Errorf("%s holds\n%s\nnot the counterexample written there:\n%s", f.path, got, f.text)
		}
	}
	p3, _, err := writeReplay(dir, "lost_update.weft", doc("an increment was lost"))
	if err != nil {
		t.Fatal(err)
	}
	if p3 != p1 {
		t.Errorf("the same counterexample written again went to %s, not %s", p3, p1)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 2 {
		t.Errorf("the directory holds %v, want the two counterexamples only", files)
	}
}

// No answer comes from an older version than the document's: when the
// latest text is not analysed within snapshotFor's wait, a request is
// answered ContentModified (LSP's code for it; clients ask again), not
// from the older snapshot, whose positions and edits are of another
// text (a formatting edit of the older text, applied to the newer one,
// undid the edit).
func TestNoAnswerFromAnOlderVersion(t *testing.T) {
	const text = "var   x int\n\nthread t {\n    x = 1\n}\n"
	u := uri.URI("file:///test/older.weft")
	for _, c := range []struct {
		name string
		ask  func(s *Server, ctx context.Context) (any, error)
	}{
		{"formatting", func(s *Server, ctx context.Context) (any, error) {
			return s.Formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		}},
		{"hover", func(s *Server, ctx context.Context) (any, error) {
			return s.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 3, Character: 4}}})
		}},
		{"rename", func(s *Server, ctx context.Context) (any, error) {
			return s.Rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 3, Character: 4}}, NewName: "y"})
		}},
	} {
		for _, version := range []int32{1, 2} {
			t.Run(fmt.Sprintf("%s, document version %d", c.name, version), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				s := &Server{ctx: ctx, docs: map[uri.URI]*document{}}
				s.docs[u] = &document{s: s, uri: u, ctx: ctx, version: version, snap: newSnapshot(ctx, "older.weft", 1, []byte(text))}
				res, err := c.ask(s, ctx)
				var rpcErr *jsonrpc2.Error
				switch {
				case version == 1 && err != nil:
					t.Errorf("the latest version: %v", err)
				case version == 1 && reflect.ValueOf(res).IsNil():
					t.Errorf("the latest version: no answer")
				case version == 2 && !(errors.As(err, &rpcErr) && rpcErr.Code == protocol.CodeContentModified):
					t.Errorf("a newer version not analysed: answered %+v, %v; want ContentModified", res, err)
				}
			})
		}
	}
}

// TestOmittedBugsCounted: a model with more distinct bugs than the engine
// keeps with traces (100) says how many it found, not only how many it
// shows, and summarises the others in the status's warnings.
func TestOmittedBugsCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString("var x int\n\nthread a {\n")
	for i := range 104 {
		fmt.Fprintf(&b, "    x = %d\n", i)
	}
	b.WriteString("}\n\nthread b {\n    x = 1\n}\n")
	cl := startServer(t, map[string]any{"escalate": false, "quickBudgetMs": 120_000})
	u := cl.open("races.weft", b.String())
	var st status
	cl.waitFor("a complete check", 120*time.Second, func() bool {
		st, _ = cl.latestStatus(u)
		return st.State == stateBugs && st.Complete
	})
	if st.Bugs != 100 || st.OmittedBugs != 4 || !strings.Contains(st.Message, "104 bugs, 100 shown") {
		t.Errorf("status: %d bugs, %d omitted, %q; want 100 shown of 104", st.Bugs, st.OmittedBugs, st.Message)
	}
	if !slices.ContainsFunc(st.Warnings, func(w string) bool { return strings.Contains(w, "4 more data races on x") }) {
		t.Errorf("warnings %q: want the 4 races not shown summarised", st.Warnings)
	}
}
