package lsp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/replay"
)

const lostUpdateFixed = `var c int
var m mutex

thread incr[k in 0..2] {
    lock(m)
    c = c + 1
    unlock(m)
}

thread main {
    join incr[0]
    join incr[1]
    assert c == 2, "an increment was lost"
}
`

func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A type error shows at once and goes when the fix is typed.
func TestStaticDiagnostics(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 50})
	u := c.open("typo.weft", "var c int\n\nthread t {\n    c = d + 1\n}\n")
	c.waitFor("undefined-name", 5*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 1 && hasCode(p.diags, "undefined-name")
	})
	c.mu.Lock()
	p, _ := c.latestDiags(u)
	c.mu.Unlock()
	if r := p.diags[0].Range; r.Start.Line != 3 || r.Start.Character != 8 {
		t.Errorf("undefined-name at %v, want line 3 character 8", r.Start)
	}
	c.waitFor("status errors", 5*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Version == 1 && st.State == stateErrors
	})
	// Type the fix: d → c.
	c.change(u, 2, partial(3, 8, 3, 9, "c"))
	c.waitFor("the diagnostic to go", 5*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 2 && len(p.diags) == 0
	})
	c.waitFor("verified", 10*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.Version == 2 && st.State == stateVerified
	})
}

// Edits count columns in UTF-16 code units, as LSP does: an edit after a
// comment with characters outside ASCII (one of them outside the BMP)
// lands where the client meant it.
func TestUTF16Edits(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 50})
	src := "var x int\nvar /* é😀 */ y int\n\nthread t {\n    x = 1\n}\n"
	u := c.open("utf16.weft", src)
	c.waitFor("clean", 5*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 1 && len(p.diags) == 0
	})
	// "var /* é😀 */ " is 14 UTF-16 units (é is 1, 😀 is 2; 16 bytes):
	// rename y, at column 14, to zz.
	c.change(u, 2, partial(1, 14, 1, 15, "zz"))
	// Now use y, which no longer exists, at line 4 column 4.
	c.change(u, 3, partial(4, 4, 4, 5, "y"))
	c.waitFor("undefined y", 5*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 3 && hasCode(p.diags, "undefined-name")
	})
	c.mu.Lock()
	p, _ := c.latestDiags(u)
	c.mu.Unlock()
	d := p.diags[0]
	if d.Range.Start.Line != 4 || d.Range.Start.Character != 4 || !strings.Contains(messageOf(d), "y") {
		t.Errorf("got %v %q, want undefined y at 4:4", d.Range.Start, messageOf(d))
	}
	// And the renamed zz is used fine.
	c.change(u, 4, partial(4, 4, 4, 5, "zz"))
	c.waitFor("clean again", 5*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 4 && len(p.diags) == 0
	})
}

// A buggy model's bug arrives as a diagnostic with its code, trace and
// lens; the trace command replays it; typing the fix makes it go and the
// status say verified.
func TestBugThenFix(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 50})
	u := c.open("lost_update.weft", readExample(t, "lost_update.weft"))
	start := time.Now()
	c.waitFor("the assertion diagnostic", 10*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && hasCode(p.diags, "assertion") && hasCode(p.diags, "data-race")
	})
	t.Logf("first bug diagnostics after %v", time.Since(start))
	c.mu.Lock()
	p, _ := c.latestDiags(u)
	c.mu.Unlock()
	var bugID string
	for _, d := range p.diags {
		if d.Source.IsZero() {
			t.Errorf("diagnostic without source: %q", messageOf(d))
		}
		switch codeOf(d) {
		case "data-race":
			if d.Severity != protocol.DiagnosticSeverityWarning {
				t.Errorf("a data race has severity %v, want warning", d.Severity)
			}
			if len(d.RelatedInformation) == 0 || !strings.Contains(d.RelatedInformation[0].Message, "other access") {
				t.Errorf("data race without the other access: %+v", d.RelatedInformation)
			}
		case "assertion":
			if d.Severity != protocol.DiagnosticSeverityError || d.Range.Start.Line != 18 {
				t.Errorf("assertion: severity %v line %d, want error at line 18", d.Severity, d.Range.Start.Line)
			}
			var data bugData
			if err := json.Unmarshal(d.Data, &data); err != nil || data.BugID == "" {
				t.Fatalf("assertion data %s: %v", d.Data, err)
			}
			bugID = data.BugID
			if len(d.RelatedInformation) == 0 || !strings.HasPrefix(d.RelatedInformation[0].Message, "step 1: ") {
				t.Errorf("assertion without its steps: %+v", d.RelatedInformation)
			}
		}
	}
	// Lenses: the status at the top, a replay above the bug.
	lenses, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatal(err)
	}
	var replayLens *protocol.CodeLens
	for i, l := range lenses {
		if strings.HasPrefix(l.Command.Title, "Replay: assertion ") && l.Range.Start.Line == 18 {
			replayLens = &lenses[i]
		}
	}
	if replayLens == nil || len(lenses) < 2 || lenses[0].Range.Start.Line != 0 {
		t.Fatalf("lenses %+v: want the status at the top and a replay at line 18", lenses)
	}
	// The trace, step by step, with the state after each step.
	res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdTrace, Arguments: []protocol.LSPAny{rawJSON(string(u)), rawJSON(bugID)}})
	if err != nil {
		t.Fatal(err)
	}
	var tr replay.Document
	if err := json.Unmarshal(res, &tr); err != nil {
		t.Fatal(err)
	}
	if tr.Kind != "assertion" || len(tr.Steps) == 0 || len(tr.Steps[len(tr.Steps)-1].Shared) != 1 || len(tr.Threads) != 3 {
		t.Fatalf("trace %+v", tr)
	}
	// Type the fix.
	c.change(u, 2, whole(lostUpdateFixed))
	c.waitFor("verified after the fix", 20*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		p, _ := c.latestDiags(u)
		return ok && st.Version == 2 && st.State == stateVerified && p.version == 2 && len(p.diags) == 0
	})
	c.mu.Lock()
	st, _ := c.latestStatus(u)
	c.mu.Unlock()
	if !strings.HasPrefix(st.Message, "✓ Verified: ") || !st.Complete {
		t.Errorf("final status %+v: want a complete verification", st)
	}
}

// slowModel is a model whose exploration takes minutes: each edit must
// cancel it.
const slowModel = `var x int
var m mutex

thread w[i in 0..9] {
    for j in 0..3 {
        lock(m)
        x = x + i
        unlock(m)
    }
}
`

// Nothing computed for an older version is published once the edit that
// replaced it has been handled, even while a check runs.
func TestNoStaleResults(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0})
	u := c.open("slow.weft", slowModel)
	c.waitFor("checking", 10*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateChecking && !st.Waiting && st.Executions > 0
	})
	for v := int32(2); v <= 6; v++ {
		c.change(u, v, partial(0, 0, 0, 0, "// edit\n"))
		// A request after the edit: once answered, the edit was handled.
		if _, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		nd, ns := len(c.diags), len(c.statuses)
		c.mu.Unlock()
		time.Sleep(150 * time.Millisecond)
		c.mu.Lock()
		for _, p := range c.diags[nd:] {
			if p.uri == u && p.version < v {
				t.Errorf("diagnostics of version %d published after version %d was handled", p.version, v)
			}
		}
		for _, st := range c.statuses[ns:] {
			if st.URI == u && st.Version < v {
				t.Errorf("status of version %d published after version %d was handled", st.Version, v)
			}
		}
		c.mu.Unlock()
	}
	// Closing stops the work and clears the diagnostics.
	if err := c.server.DidClose(context.Background(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		t.Fatal(err)
	}
	c.waitFor("cleared diagnostics", 5*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && !p.hasVer && len(p.diags) == 0
	})
}

// Stop ends the running check as incomplete, never verified.
func TestStop(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0})
	u := c.open("slow.weft", slowModel)
	c.waitFor("checking", 10*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateChecking && !st.Waiting
	})
	if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdStop, Arguments: []protocol.LSPAny{rawJSON(string(u))}}); err != nil {
		t.Fatal(err)
	}
	c.waitFor("incomplete", 5*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateIncomplete && strings.Contains(st.Message, "stopped by the user") && st.Stopped == engine.StoppedCancelled
	})
}

var _ = uri.URI("")

const featureModel = `const N = 2 * 2

var c int
var m mutex

proc worker(i int, up bool) {
    lock(m)
    c = c + i
    unlock(m)
}

thread main {
    spawn worker(1, true)
    assert c >= 0, "never negative"
}
`

// The requests every language server answers reach analysis/query and
// come back in protocol form.
func TestStandardFeatures(t *testing.T) {
	c := startServer(t, map[string]any{"escalate": false})
	u := c.open("features.weft", featureModel)
	ctx := context.Background()
	doc := protocol.TextDocumentIdentifier{URI: u}
	at := func(line, char uint32) protocol.TextDocumentPositionParams {
		return protocol.TextDocumentPositionParams{TextDocument: doc, Position: protocol.Position{Line: line, Character: char}}
	}
	// c in `c = c + i` (line 7).
	def, err := c.server.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at(7, 4)})
	if loc, ok := def.(*protocol.Location); err != nil || !ok || loc.Range.Start.Line != 2 || loc.Range.Start.Character != 4 {
		t.Errorf("definition of c: %#v, %v", def, err)
	}
	refs, err := c.server.References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: at(7, 4), Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	if err != nil || len(refs) != 4 {
		t.Errorf("references of c: %d, %v; want 4", len(refs), err)
	}
	hl, err := c.server.DocumentHighlight(ctx, &protocol.DocumentHighlightParams{TextDocumentPositionParams: at(7, 4)})
	if err != nil || len(hl) != 4 || hl[1].Kind != protocol.DocumentHighlightKindWrite {
		t.Errorf("highlights of c: %+v, %v", hl, err)
	}
	edit, err := c.server.Rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: at(7, 4), NewName: "count"})
	if err != nil || len(edit.Changes[u]) != 4 {
		t.Errorf("rename c: %+v, %v", edit, err)
	}
	if _, err := c.server.Rename(ctx, &protocol.RenameParams{TextDocumentPositionParams: at(7, 4), NewName: "thread"}); err == nil {
		t.Errorf("renaming to a keyword was accepted")
	}
	syms, err := c.server.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: doc})
	if ds, ok := syms.(protocol.DocumentSymbolSlice); err != nil || !ok || len(ds) != 5 {
		t.Errorf("symbols: %+v, %v; want 5", syms, err)
	}
	folds, err := c.server.FoldingRanges(ctx, &protocol.FoldingRangeParams{TextDocument: doc})
	if err != nil || len(folds) != 2 {
		t.Errorf("folds: %+v, %v; want the two bodies", folds, err)
	}
	comp, err := c.server.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: at(12, 10)})
	if list, ok := comp.(*protocol.CompletionList); err != nil || !ok || !slices.ContainsFunc(list.Items, func(ci protocol.CompletionItem) bool { return ci.Label == "worker" }) {
		t.Errorf("completion after spawn: %+v, %v", comp, err)
	}
	sig, err := c.server.SignatureHelp(ctx, &protocol.SignatureHelpParams{TextDocumentPositionParams: at(12, 20)})
	if err != nil || sig == nil || sig.Signatures[0].Label != "worker(i int, up bool)" {
		t.Errorf("signature help: %+v, %v", sig, err)
	}
	hints, err := c.server.InlayHint(ctx, &protocol.InlayHintParams{TextDocument: doc, Range: protocol.Range{End: protocol.Position{Line: 20}}})
	if err != nil || len(hints) != 1 || hints[0].Label != protocol.String("= 4") {
		t.Errorf("inlay hints: %+v, %v; want = 4 after N", hints, err)
	}
	toks, err := c.server.SemanticTokensFull(ctx, &protocol.SemanticTokensParams{TextDocument: doc})
	if err != nil || len(toks.Data) == 0 || len(toks.Data)%5 != 0 {
		t.Errorf("semantic tokens: %v", err)
	}
	c.change(u, 2, whole("var c int\nthread t {\n  c = 1\n}\n"))
	edits, err := c.server.Formatting(ctx, &protocol.DocumentFormattingParams{TextDocument: doc})
	if err != nil || len(edits) != 1 || edits[0].NewText != "var c int\nthread t {\n    c = 1\n}\n" {
		t.Errorf("formatting: %+v, %v", edits, err)
	}
}

// Hover on a statement lists its steps and the statements of other
// threads it is dependent with; on a shared variable, who accesses it.
func TestHover(t *testing.T) {
	c := startServer(t, map[string]any{"escalate": false})
	u := c.open("lost_update.weft", readExample(t, "lost_update.weft"))
	hover := func(line, char uint32) string {
		t.Helper()
		h, err := c.server.Hover(context.Background(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: line, Character: char}}})
		if err != nil || h == nil {
			t.Fatalf("hover %d:%d: %v, %v", line, char, h, err)
		}
		return h.Contents.(*protocol.MarkupContent).Value
	}
	// `c = c + 1` in incr (line 12), away from the names.
	stmt := hover(12, 10)
	for _, want := range []string{"2 visible steps", "Dependent with", "incr", "line 19"} {
		if !strings.Contains(stmt, want) {
			t.Errorf("statement hover lacks %q:\n%s", want, stmt)
		}
	}
	// The shared variable c at its declaration.
	v := hover(9, 4)
	for _, want := range []string{"var c int", "incr"} {
		if !strings.Contains(v, want) {
			t.Errorf("variable hover lacks %q:\n%s", want, v)
		}
	}
	t.Logf("statement:\n%s\nvariable:\n%s", stmt, v)
}

// weft.trace says what kind of step each step is and on what, marks the
// step with which each thread ends, and, for a data race, which two
// steps race.
func TestTraceEvents(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0})
	locks := c.open("runtime_error.weft", readExample(t, "runtime_error.weft"))
	race := c.open("lost_update.weft", readExample(t, "lost_update.weft"))
	traceOf := func(u uri.URI, code string) *replay.Document {
		t.Helper()
		var id string
		c.waitFor(code, 10*time.Second, func() bool {
			p, ok := c.latestDiags(u)
			for _, d := range p.diags {
				var data bugData
				if ok && codeOf(d) == code && json.Unmarshal(d.Data, &data) == nil {
					id = data.BugID
				}
			}
			return id != ""
		})
		res, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdTrace, Arguments: []protocol.LSPAny{rawJSON(string(u)), rawJSON(id)}})
		if err != nil {
			t.Fatal(err)
		}
		var doc replay.Document
		if err := json.Unmarshal(res, &doc); err != nil {
			t.Fatal(err)
		}
		if err := doc.Validate(); err != nil || len(doc.Steps) == 0 {
			t.Fatalf("%s: invalid trace (%v): %s", code, err, res)
		}
		if doc.File != "/test/"+strings.TrimPrefix(string(u), "file:///test/") {
			t.Errorf("file %q for %s", doc.File, u)
		}
		// The text's hash, for the debugger to notice a change under it.
		if want := replay.SourceHash([]byte(readExample(t, strings.TrimPrefix(string(u), "file:///test/")))); doc.SourceSHA256 != want {
			t.Errorf("sourceSha256 %q for %s, want %q", doc.SourceSHA256, u, want)
		}
		return &doc
	}

	// Locks: every lock and unlock is of m; each leaver ends with its
	// unlock; the planner's failure is a stop step, on nothing.
	doc := traceOf(locks, "runtime-error")
	ends := map[string]int{}
	for _, st := range doc.Steps {
		kind, _, _ := strings.Cut(st.Op, " ")
		switch st.Event.Kind {
		case "lock", "unlock", "read", "write":
			if kind != st.Event.Kind {
				t.Errorf("step %d %q: event %+v", st.Step, st.Op, st.Event)
			}
		}
		if (st.Event.Kind == "lock" || st.Event.Kind == "unlock") && st.Event.Object != "m" {
			t.Errorf("step %d %q: object %q, want m", st.Step, st.Op, st.Event.Object)
		}
		if st.Event.Kind == "read" || st.Event.Kind == "write" {
			if st.Event.Object != "workers" && st.Event.Object != "share" {
				t.Errorf("step %d %q: object %q", st.Step, st.Op, st.Event.Object)
			}
		}
		if st.Ends {
			ends[st.Thread]++
			if st.Event.Kind != "unlock" || !strings.HasPrefix(st.Thread, "leaver[") {
				t.Errorf("step %d %s %q ends its thread", st.Step, st.Thread, st.Op)
			}
		}
	}
	if ends["leaver[0]"] != 1 || ends["leaver[1]"] != 1 || len(ends) != 2 {
		t.Errorf("ends %v: want each leaver once", ends)
	}
	if last := doc.Steps[len(doc.Steps)-1]; last.Event != (replay.Event{Kind: "stop"}) || last.Thread != "planner" {
		t.Errorf("last step %+v: want the planner's stop", last)
	}
	if doc.RaceSteps != nil {
		t.Errorf("raceSteps %v in a runtime error", doc.RaceSteps)
	}

	// A data race: the two unordered accesses of c, the last step one
	// of them, one a write.
	doc = traceOf(race, "data-race")
	if len(doc.RaceSteps) != 2 {
		t.Fatalf("raceSteps %v, want two steps", doc.RaceSteps)
	}
	i, j := doc.Steps[doc.RaceSteps[0]-1], doc.Steps[doc.RaceSteps[1]-1]
	if doc.RaceSteps[1] != len(doc.Steps) || doc.RaceSteps[0] >= doc.RaceSteps[1] {
		t.Errorf("raceSteps %v of %d steps", doc.RaceSteps, len(doc.Steps))
	}
	if i.Thread == j.Thread || i.Event.Object != "c" || j.Event.Object != "c" || (i.Event.Kind != "write" && j.Event.Kind != "write") {
		t.Errorf("racing steps %+v and %+v", i, j)
	}
}

// A check the user stopped stays stopped when a setting changes: the
// settings change re-checked every open document, the stopped one too.
func TestStopSurvivesSettings(t *testing.T) {
	c := startServer(t, map[string]any{"idleDelayMs": 0})
	u := c.open("slow.weft", slowModel)
	c.waitFor("checking", 10*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateChecking && !st.Waiting
	})
	if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdStop, Arguments: []protocol.LSPAny{rawJSON(string(u))}}); err != nil {
		t.Fatal(err)
	}
	c.waitFor("stopped", 5*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateIncomplete && st.Stopped == engine.StoppedCancelled
	})
	c.mu.Lock()
	ns := len(c.statuses)
	c.mu.Unlock()
	for _, set := range []map[string]any{{"cdpor": false}, {"cdpor": true, "maxSteps": 5000}} {
		if err := c.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: rawJSON(map[string]any{"weft": set})}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.statuses[ns:] {
		if st.URI == u && st.State != stateIncomplete {
			t.Errorf("after a settings change the stopped check's status went %q (%s)", st.State, st.Message)
		}
	}
	if st, ok := c.latestStatus(u); !ok || st.State != stateIncomplete || !strings.Contains(st.Message, "stopped by the user") {
		t.Errorf("the status is %+v, want still stopped by the user", st)
	}
	c.mu.Unlock()
	// A check the user asks for runs.
	if _, err := c.server.ExecuteCommand(context.Background(), &protocol.ExecuteCommandParams{Command: cmdRunOptimal, Arguments: []protocol.LSPAny{rawJSON(string(u))}}); err != nil {
		t.Fatal(err)
	}
	c.waitFor("checking again", 10*time.Second, func() bool {
		st, ok := c.latestStatus(u)
		return ok && st.State == stateChecking && !st.Waiting
	})
	c.mu.Lock()
}
