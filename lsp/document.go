package lsp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/analysis/indep"
	"weft/analysis/lower"
	"weft/engine"
	"weft/source"
)

// maxDocument bounds the text of a document, as the CLI does: past it the
// server reports one diagnostic and checks nothing.
const maxDocument = 16 << 20

// docName is the name diagnostics and titles use for a document: its
// file name, or the whole uri for one that is not a file.
func docName(u uri.URI) string {
	if p := u.Path(); p != "" {
		return path.Base(p)
	}
	return string(u)
}

// snapshot is one version of a document, analysed: immutable once built
// (gopls' snapshots are the model). What is derived from it later hangs
// off it as promises, computed once for every caller (facts, the
// independence constraints); what explorations find out about it lives
// beside it, in its document's results (keyed by version), never in it.
// Every result the server publishes carries the version it came from.
type snapshot struct {
	version int32
	text    []byte
	file    *source.File
	loaded  *lower.Loaded // nil when the text is over maxDocument
	diags   []source.Diagnostic

	// ctx ends when a newer version of the document arrives, or the
	// document closes: it bounds the work derived from the snapshot,
	// and a request still holding it is answered ContentModified.
	ctx    context.Context
	cancel context.CancelFunc

	factsMemo *promise[factsOutcome]       // see facts()
	consMemo  *promise[constraintsOutcome] // see startConstraints
}

// newSnapshot analyses one version of a document; its derived work ends
// with ctx or snap.cancel.
func newSnapshot(ctx context.Context, name string, version int32, text []byte) *snapshot {
	snap := &snapshot{version: version, text: text, file: source.NewFile(name, text),
		factsMemo: newPromise[factsOutcome](), consMemo: newPromise[constraintsOutcome]()}
	snap.ctx, snap.cancel = context.WithCancel(ctx)
	if len(text) > maxDocument {
		snap.diags = []source.Diagnostic{{
			Severity: source.Error, Code: "file-too-large",
			Message: fmt.Sprintf("the file has %d bytes; weft checks files of at most %d", len(text), maxDocument),
		}}
		return snap
	}
	snap.loaded = lower.Load(name, text)
	snap.diags = snap.loaded.Diagnostics
	return snap
}

// superseded is the error of work on a snapshot whose version is no
// longer the document's (or whose document closed): LSP's
// ContentModified, which tells the client to ask again.
func (snap *snapshot) superseded() error {
	return fmt.Errorf("%w: version %d of the document was replaced or closed", protocol.ErrContentModified, snap.version)
}

// results holds what the explorations of a document found out about its
// latest version that had any, beside its snapshots (which stay
// immutable): the counts of the independence conditions, for the hover.
// An answer about another version gets nothing from it.
type results struct {
	mu           sync.Mutex
	version      int32
	independence []engine.IndepStat
}

// setIndependence keeps an exploration's counts of the independence
// conditions of version (nothing when it has none: an earlier run's
// stay).
func (r *results) setIndependence(version int32, stats []engine.IndepStat) {
	if len(stats) == 0 {
		return
	}
	r.mu.Lock()
	r.version, r.independence = version, stats
	r.mu.Unlock()
}

// indepStats returns the latest counts of version in analysis/indep's
// terms (nil: no exploration of that version counted any).
func (r *results) indepStats(version int32) []indep.Stat {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.version != version || len(r.independence) == 0 {
		return nil
	}
	out := make([]indep.Stat, len(r.independence))
	for i, s := range r.independence {
		out[i] = indep.Stat{Pair: s.Pair, Origin: s.Origin, Text: s.Text, Checked: s.Checked, Held: s.Held}
	}
	return out
}

// hasErrors says whether the snapshot has static errors (then nothing is
// explored).
func (s *snapshot) hasErrors() bool {
	return s.loaded == nil || s.loaded.Exec == nil
}

// document is an open document: its latest text and the work on it. Edits
// come in order on the connection's reading goroutine; one worker
// goroutine per document analyses and checks the latest version.
type document struct {
	s   *Server
	uri uri.URI

	ctx    context.Context // the document's; cancelled on close
	cancel context.CancelFunc
	wake   chan struct{} // the text changed (capacity 1)
	cmds   chan docCommand
	done   chan struct{} // the worker ended

	// results are what its explorations found (see results).
	results results

	mu        sync.Mutex
	version   int32
	text      []byte
	snap      *snapshot // the latest analysed snapshot (may lag the text)
	runCancel context.CancelFunc
	stopAsked bool
	// userStopped: the user stopped the checks of version stoppedVersion
	// (weft.stop); a settings change does not start them again, an edit
	// or a command does.
	userStopped    bool
	stoppedVersion int32
	st             status
	bugs           []*bugReport // of snap's version
	progress       string       // the work-done progress token of the running check
	lastLens       time.Time
	// hintsWithheld: an inlay hint request found the latest text not
	// analysed in time and was answered with none; the client is asked
	// again once it is.
	hintsWithheld bool
	// publishedAt is when the diagnostics were last published, and
	// publishTimer, when not nil, a publication due (see publishSoonLocked).
	publishedAt  time.Time
	publishTimer *time.Timer
}

type docCommand int

const (
	cmdRunOptimalNow docCommand = iota
)

func (s *Server) openDocument(u uri.URI, version int32, text []byte) *document {
	ctx, cancel := context.WithCancel(s.ctx)
	d := &document{
		s: s, uri: u, ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1), cmds: make(chan docCommand, 1), done: make(chan struct{}),
		version: version, text: text,
	}
	go d.run()
	d.poke()
	return d
}

// poke wakes the worker after an edit.
func (d *document) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// edit records a new version and cancels whatever runs for an older one.
func (d *document) edit(version int32, apply func([]byte) ([]byte, error)) error {
	d.mu.Lock()
	text, err := apply(d.text)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	changed := d.version != version
	d.text, d.version = text, version
	d.bugs = nil
	if d.runCancel != nil {
		d.runCancel()
	}
	if changed && d.snap != nil {
		// The older version's derived work (facts, constraints) is of no
		// use any more, and a request holding it answers ContentModified.
		d.snap.cancel()
	}
	d.mu.Unlock()
	d.poke()
	if changed {
		// What the client shows of the older version goes at once.
		d.s.refreshVersion()
	}
	return nil
}

// recheck cancels what runs and checks the current text again, from its
// analysis (the settings changed).
func (d *document) recheck() {
	d.mu.Lock()
	if d.runCancel != nil {
		d.runCancel()
	}
	d.mu.Unlock()
	d.poke()
}

// close stops the document's work and clears what was published for it.
func (d *document) close() {
	d.cancel()
	<-d.done
	_ = d.s.client.PublishDiagnostics(context.WithoutCancel(d.ctx), &protocol.PublishDiagnosticsParams{URI: d.uri, Diagnostics: []protocol.Diagnostic{}})
}

// current says whether version is still the document's latest.
func (d *document) current(version int32) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.version == version
}

// DidOpen starts tracking a document.
func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	u := params.TextDocument.URI
	text := []byte(params.TextDocument.Text)
	s.mu.Lock()
	old := s.docs[u]
	d := s.openDocument(u, params.TextDocument.Version, text)
	s.docs[u] = d
	s.mu.Unlock()
	if old != nil {
		go old.stopWork() // opened twice: the new text wins
	}
	return nil
}

// stopWork stops a replaced document without clearing its diagnostics.
func (d *document) stopWork() {
	d.cancel()
	<-d.done
}

// DidChange applies edits in order. An edit that does not fit the text
// (a client out of step) is logged and the document asks for nothing
// more until the next full-text change or reopen.
func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	d := s.doc(params.TextDocument.URI)
	if d == nil {
		s.logf("didChange for %s, which is not open", params.TextDocument.URI)
		return nil
	}
	err := d.edit(params.TextDocument.Version, func(text []byte) ([]byte, error) {
		for _, ch := range params.ContentChanges {
			switch c := ch.(type) {
			case *protocol.TextDocumentContentChangeWholeDocument:
				text = []byte(c.Text)
			case *protocol.TextDocumentContentChangePartial:
				text = applyEdit(text, c.Range, c.Text)
			}
		}
		return text, nil
	})
	if err != nil {
		s.logf("didChange %s: %v", params.TextDocument.URI, err)
	}
	return nil
}

// applyEdit replaces rng (LSP line and UTF-16 column, clamped into the
// text) with newText.
func applyEdit(text []byte, rng protocol.Range, newText string) []byte {
	f := source.NewFile("", text)
	start := f.Offset(int(rng.Start.Line), int(rng.Start.Character))
	end := f.Offset(int(rng.End.Line), int(rng.End.Character))
	if end < start {
		start, end = end, start
	}
	out := make([]byte, 0, len(text)-(end-start)+len(newText))
	out = append(out, text[:start]...)
	out = append(out, newText...)
	return append(out, text[end:]...)
}

// DidClose stops the document's work and clears its diagnostics.
func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[params.TextDocument.URI]
	delete(s.docs, params.TextDocument.URI)
	s.mu.Unlock()
	if d != nil {
		go d.close()
	}
	return nil
}

// DidSave is accepted: the text is already known from the edits.
func (s *Server) DidSave(context.Context, *protocol.DidSaveTextDocumentParams) error { return nil }

// snapshotFor returns the analysed snapshot of an open document's
// latest text, waiting (up to a second, or until ctx ends) for its
// analysis when that is still running, so that a request right after an
// edit sees the edit. When it is not done by then the answer is
// ContentModified (the client asks again), never one from an older
// snapshot: its positions and edits are of another text (a formatting
// edit of it, applied to the newer text, would undo the edit).
func (s *Server) snapshotFor(ctx context.Context, u uri.URI) (*snapshot, error) {
	_, snap, err := s.docSnapshotFor(ctx, u)
	return snap, err
}

// docSnapshotFor is snapshotFor with the document the snapshot is of.
func (s *Server) docSnapshotFor(ctx context.Context, u uri.URI) (*document, *snapshot, error) {
	d := s.doc(u)
	if d == nil {
		return nil, nil, errNoDocument(u)
	}
	deadline := time.Now().Add(time.Second)
	for {
		d.mu.Lock()
		snap, version := d.snap, d.version
		d.mu.Unlock()
		if snap != nil && snap.version == version {
			return d, snap, nil
		}
		if snap != nil && time.Now().After(deadline) {
			return nil, nil, protocol.ErrContentModified
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-d.ctx.Done():
			return nil, nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "the document was closed")
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// latestSnapshot is snapshotFor for the answers that must never come
// from an older version than the document's (inlay hints): nil, and no
// error, when the analysis of the latest text is not done in time.
func (s *Server) latestSnapshot(ctx context.Context, u uri.URI) (*snapshot, error) {
	if _, err := s.snapshotFor(ctx, u); err != nil && !errors.Is(err, protocol.ErrContentModified) {
		return nil, err
	}
	d := s.doc(u)
	if d == nil {
		return nil, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.snap != nil && d.snap.version == d.version {
		return d.snap, nil // the latest (it may have come since)
	}
	d.hintsWithheld = true // analyse asks the client again
	return nil, nil
}

// pos turns an LSP position into a position in the snapshot's text
// (clamped into the line and the file).
func (snap *snapshot) pos(p protocol.Position) source.Pos {
	return snap.file.Pos(snap.file.Offset(int(p.Line), int(p.Character)))
}
