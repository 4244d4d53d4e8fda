package dap

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	godap "github.com/google/go-dap"

	"weft/replay"
)

// The model's text under the replay. A counterexample's lines are those
// of the text it was built from: once the text changes, every line the
// replay would highlight may be wrong. The session notices a change in
// two ways: the file on disk, looked at before each stop and each stack
// trace, and the client's weftSourceChanged request (an editor whose
// buffer changed). Either way it says so and ends the replay.

// requestSourceChanged is the client's word that the model's text changed.
const requestSourceChanged = "weftSourceChanged"

// modelWatch is what the session knows of the model file.
type modelWatch struct {
	path    string
	hashes  map[string]bool // texts whose lines the replay's are: the document's and the file's at launch
	size    int64           // the file as last read
	modTime time.Time
}

// watchModel starts watching the model at path ("" or unreadable: no
// watch). docHash is the hash of the text the document was built from,
// when known: the file may hold another text at launch (an editor's
// unsaved buffer was checked), and saving that buffer is no change.
func watchModel(path, docHash string) *modelWatch {
	if path == "" {
		return nil
	}
	w := &modelWatch{path: path, hashes: map[string]bool{}}
	if docHash != "" {
		w.hashes[docHash] = true
	}
	if !w.read() && docHash == "" {
		return nil // nothing to compare with
	}
	return w
}

// read reads the file, remembering its size and time, and when the
// watch has no text yet, its hash. It reports whether it could.
func (w *modelWatch) read() bool {
	st, err := os.Stat(w.path)
	if err != nil {
		return false
	}
	src, err := replay.ReadModel(w.path)
	if err != nil {
		return false
	}
	w.size, w.modTime = st.Size(), st.ModTime()
	if len(w.hashes) < 2 {
		w.hashes[replay.SourceHash(src)] = true
	}
	return true
}

// changed says whether the file now holds a text other than the
// replay's. A file it cannot read is no change it can see.
func (w *modelWatch) changed() bool {
	st, err := os.Stat(w.path)
	if err != nil || (st.Size() == w.size && st.ModTime().Equal(w.modTime)) {
		return false
	}
	src, err := replay.ReadModel(w.path)
	if err != nil {
		return false
	}
	if w.hashes[replay.SourceHash(src)] {
		w.size, w.modTime = st.Size(), st.ModTime()
		return false
	}
	return true
}

// checkModel looks at the model file and ends the replay if its text
// changed. It reports whether the replay still holds.
func (s *session) checkModel() bool {
	if s.stale != "" {
		return false
	}
	if s.watch != nil && s.watch.changed() {
		s.markStale(fmt.Sprintf("%s changed on disk since this replay began", filepath.Base(s.watch.path)))
	}
	return s.stale == ""
}

// markStale ends the replay because its text changed: an important
// output (a client shows it to the user), then terminated. From then
// on the frames show no lines and the replay does not move.
func (s *session) markStale(what string) {
	if s.stale != "" {
		return
	}
	s.stale = what + ": the counterexample's lines no longer match the text, so the replay has stopped. Replay the bug again on the new text."
	s.emit("output", godap.OutputEventBody{Category: "important", Output: "weft: " + s.stale + "\n"})
	s.terminate()
}

// sourceChanged answers weftSourceChanged {"path", "uri", "version"}: if
// it is the model's text, the replay ends (see markStale).
func (s *session) sourceChanged(req *envelope) (any, error) {
	var args struct {
		Path    string `json:"path"`
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	}
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if s.doc == nil {
		return nil, errNotLaunched
	}
	ours := s.isModel(args.Path) || (args.URI != "" && args.URI == s.doc.URI)
	if ours {
		what := "the text of " + filepath.Base(s.fileOrURI()) + " changed in the editor since this replay began"
		if args.Version != nil && s.doc.URI != "" {
			what += fmt.Sprintf(" (version %d; the counterexample is of version %d)", *args.Version, s.doc.Version)
		}
		s.markStale(what)
	}
	return map[string]bool{"stale": s.stale != ""}, nil
}

// fileOrURI names the model.
func (s *session) fileOrURI() string {
	if s.file != "" {
		return s.file
	}
	return s.doc.URI
}
