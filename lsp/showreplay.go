package lsp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/replay"
)

// A client other than the VS Code extension cannot replay the document
// weft.replay answers: for it (no weftCaps.replay) the command also
// writes the counterexample as text, in the words of `weft replay`
// (replay.Document.WriteText), and asks the client to show the file
// (window/showDocument), or, if it cannot, says where it is and how the
// trace begins (window/showMessage). The code action "Show
// counterexample" on a bug's diagnostic runs the same command, for the
// clients without code lenses (eglot).

// maxReplayFiles bounds the counterexamples kept in the replay
// directory: writing one removes the oldest past this number.
const maxReplayFiles = 32

// showMessageLines is how much of the trace window/showMessage quotes
// when the client cannot open the file.
const showMessageLines = 12

// replayDir is where the counterexamples are written:
// $XDG_CACHE_HOME/weft/replays (os.UserCacheDir), else the temporary
// directory's weft-replays.
func replayDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "weft", "replays")
	}
	return filepath.Join(os.TempDir(), "weft-replays")
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeReplay writes doc's text for the document named name into dir
// and removes the oldest files past maxReplayFiles; it returns the path
// and the text.
func writeReplay(dir, name string, doc *replay.Document) (string, []byte, error) {
	var buf bytes.Buffer
	if err := doc.WriteText(&buf, name); err != nil {
		return "", nil, fmt.Errorf("writing the counterexample: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("the replay directory: %w", err)
	}
	// The name ends with a hash of the text: every server writes here,
	// and each counts versions and bugs from 1, so the model's name, the
	// version and the bug's id alone name two servers' counterexamples
	// (or two models named alike) the same, and a client would open the
	// other's. Alike names now mean alike texts.
	sum := sha256.Sum256(buf.Bytes())
	base := unsafeName.ReplaceAllString(fmt.Sprintf("%s-v%d-%s-%x", strings.TrimSuffix(name, ".weft"), doc.Version, doc.BugID, sum[:6]), "_")
	path := filepath.Join(dir, base+".replay.txt")
	if err := writeFileAtomic(dir, path, buf.Bytes()); err != nil {
		return "", nil, fmt.Errorf("writing %s: %w", path, err)
	}
	pruneReplays(dir, path)
	return path, buf.Bytes(), nil
}

// writeFileAtomic writes data to path through a temporary file of dir
// renamed over it, so that a client opening path (or another server
// writing it) never sees a text half written.
func writeFileAtomic(dir, path string, data []byte) error {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}

// pruneReplays removes the oldest counterexamples of dir past
// maxReplayFiles, never keep.
func pruneReplays(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".replay.txt") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{filepath.Join(dir, e.Name()), info.ModTime()})
	}
	if len(files) <= maxReplayFiles {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for _, f := range files[:len(files)-maxReplayFiles] {
		if f.path != keep {
			_ = os.Remove(f.path)
		}
	}
}

// showReplay writes doc as text and shows it to a client that does not
// replay counterexamples itself. It does not wait for the client: a
// client may answer the server's requests only once its own is
// answered.
func (s *Server) showReplay(u uri.URI, doc *replay.Document) {
	path, text, err := writeReplay(replayDir(), docName(u), doc)
	if err != nil {
		s.logf("weft.replay: %v", err)
		_ = s.client.ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "weft: could not write the counterexample: " + err.Error()})
		return
	}
	go func() {
		if s.caps.showDocument {
			ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
			defer cancel()
			t := true
			res, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &t})
			if err == nil && res != nil && res.Success {
				return
			}
		}
		lines := strings.SplitN(string(text), "\n", showMessageLines+1)
		msg := fmt.Sprintf("weft: the counterexample is in %s\n%s", path, strings.Join(lines[:min(len(lines), showMessageLines)], "\n"))
		_ = s.client.ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: msg})
	}()
}

// CodeAction offers "Show counterexample (N steps)" for each bug whose
// diagnostic is in the range asked about or among the request's
// diagnostics: the command weft.replay, as the lens above the bug.
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	d := s.doc(params.TextDocument.URI)
	if d == nil {
		return nil, errNoDocument(params.TextDocument.URI)
	}
	named := map[string]bool{}
	for _, diag := range params.Context.Diagnostics {
		var data bugData
		if len(diag.Data) > 0 && json.Unmarshal(diag.Data, &data) == nil && data.BugID != "" {
			named[data.BugID] = true
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := []protocol.CommandOrCodeAction{}
	quickfix := protocol.CodeActionKindQuickFix
	for _, b := range d.bugs {
		if b.snap.version != d.version {
			continue
		}
		own := d.bugDiagnostic(b)
		diags := []protocol.Diagnostic{own}
		on := overlaps(own.Range, params.Range)
		if o := d.raceOtherDiagnostic(b, own); o != nil {
			// The race's other access has its own diagnostic, with
			// the bug's id: the action is offered there too.
			diags = append(diags, *o)
			on = on || overlaps(o.Range, params.Range)
		}
		if !named[b.id] && !on {
			continue
		}
		title := fmt.Sprintf("Show counterexample (%s)", plural(len(b.schedule), "step"))
		out = append(out, &protocol.CodeAction{
			Title:       title,
			Kind:        &quickfix,
			Diagnostics: diags,
			Command:     protocol.Command{Title: title, Command: cmdReplay, Arguments: []protocol.LSPAny{rawJSON(string(d.uri)), rawJSON(b.id)}},
		})
	}
	return out, nil
}

// overlaps says whether two ranges share a position (ends included: a
// cursor at either end of a diagnostic is on it).
func overlaps(a, b protocol.Range) bool {
	return !posBefore(a.End, b.Start) && !posBefore(b.End, a.Start)
}

func posBefore(p, q protocol.Position) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Character < q.Character)
}
