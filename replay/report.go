package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"weft/analysis/lower"
	"weft/engine"
	"weft/source"
)

// Size limits of the files read here.
const (
	MaxReportSize = 256 << 20 // a report (a --full-trace report of long traces is big)
	MaxModelSize  = 16 << 20  // a model, as weft check's limit
)

// Report is what a replay needs of one model's object in the JSON that
// `weft check --json` prints (docs/cli.md); the rest is ignored.
type Report struct {
	File         string      `json:"file"`
	SourceSHA256 string      `json:"source_sha256"`
	Bugs         []ReportBug `json:"bugs"`

	// Path is the report file it was read from (not in the JSON).
	Path string `json:"-"`
}

// ReportBug is one bug of a report.
type ReportBug struct {
	Kind        string      `json:"kind"`
	Message     string      `json:"message"`
	Thread      string      `json:"thread"`
	Range       Range       `json:"range"`
	Other       *ReportSide `json:"other"`
	Schedule    []int32     `json:"schedule"`
	LocalBudget int         `json:"local_budget"`
	// Choices, NoSpinWait and SpuriousWakeups replay the alternatives and
	// the semantics the bug was found with (absent: none).
	Choices         []int32          `json:"choices"`
	NoSpinWait      bool             `json:"no_spin_wait"`
	SpuriousWakeups bool             `json:"spurious_wakeups"`
	Trace           []ReportStepJSON `json:"trace"`
	// FullSchedule and FullChoices are, for a sliced trace, the whole
	// execution it was sliced from (absent otherwise).
	FullSchedule []int32 `json:"full_schedule"`
	FullChoices  []int32 `json:"full_choices"`
}

// ReportStepJSON is what a replay reads of a trace step: the alternative
// it took ("choice", absent when the first).
type ReportStepJSON struct {
	Choice int32 `json:"choice"`
}

// choices are the alternatives of b's schedule: its "choices", or else
// those of its trace's steps when the trace is complete (nil when every
// step took its first).
func (b *ReportBug) choices() []int32 {
	if b.Choices != nil || len(b.Trace) != len(b.Schedule) {
		return b.Choices
	}
	var out []int32
	for i, st := range b.Trace {
		if st.Choice != 0 && out == nil {
			out = make([]int32, len(b.Trace))
		}
		if out != nil {
			out[i] = st.Choice
		}
	}
	return out
}

// ReportSide is the other access of a data race.
type ReportSide struct {
	Thread string `json:"thread"`
	Op     string `json:"op"`
	Range  Range  `json:"range"`
}

// SourceHash is the hex SHA-256 of a model's text, the report's
// source_sha256.
func SourceHash(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// ReadReports reads the report at path: the object of one model, or an
// array of them.
func ReadReports(path string) ([]Report, error) {
	data, err := readFile(path, MaxReportSize, "reports")
	if err != nil {
		return nil, err
	}
	var one Report
	var many []Report
	if err := json.Unmarshal(data, &one); err == nil {
		many = []Report{one}
	} else if json.Unmarshal(data, &many) != nil {
		return nil, fmt.Errorf("%s: not the JSON of 'weft check --json': %w", path, err)
	}
	if len(many) == 0 {
		return nil, fmt.Errorf("%s: a report of no model", path)
	}
	for i := range many {
		if many[i].Bugs == nil {
			return nil, fmt.Errorf("%s: not the JSON of 'weft check --json' (no \"bugs\")", path)
		}
		many[i].Path = path
	}
	return many, nil
}

// Select picks, among the reports of one file, the check of the model at
// modelPath whose text is src, and checks that it is a check of that very
// text (when the report has its hash) or at least of a file of that name.
func Select(reports []Report, modelPath string, src []byte) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("no report")
	}
	hash := SourceHash(src)
	r := &reports[0]
	if len(reports) > 1 {
		r = nil
		for i := range reports {
			if reports[i].SourceSHA256 != "" && reports[i].SourceSHA256 == hash {
				r = &reports[i]
				break
			}
		}
		for i := range reports {
			if r == nil && reports[i].sameFile(modelPath) {
				r = &reports[i]
			}
		}
		if r == nil {
			return nil, fmt.Errorf("%s has no check of %s", reports[0].Path, modelPath)
		}
	}
	switch {
	case r.SourceSHA256 != "" && r.SourceSHA256 != hash:
		if r.sameFile(modelPath) {
			return nil, fmt.Errorf("%s is a check of another version of %s (the file changed since): run the check again", r.Path, modelPath)
		}
		return nil, fmt.Errorf("%s is a check of %s, not of %s", r.Path, r.File, modelPath)
	case r.SourceSHA256 == "" && r.File != "" && filepath.Base(r.File) != filepath.Base(modelPath):
		return nil, fmt.Errorf("%s is a check of %s, not of %s", r.Path, r.File, modelPath)
	}
	return r, nil
}

// sameFile says whether the report's file is modelPath: the same path as
// written, or the same file once the report's is taken relative to the
// report's directory.
func (r *Report) sameFile(modelPath string) bool {
	if r.File == "" {
		return false
	}
	if filepath.Clean(r.File) == filepath.Clean(modelPath) {
		return true
	}
	for _, p := range r.modelCandidates() {
		a, err1 := filepath.Abs(p)
		b, err2 := filepath.Abs(modelPath)
		if err1 == nil && err2 == nil && a == b {
			return true
		}
	}
	return false
}

// modelCandidates are where the report's model may be: its path as
// written if absolute; otherwise relative to the report's directory, then
// to the working directory.
func (r *Report) modelCandidates() []string {
	if r.File == "" {
		return nil
	}
	if filepath.IsAbs(r.File) {
		return []string{r.File}
	}
	return []string{filepath.Join(filepath.Dir(r.Path), r.File), r.File}
}

// ModelPath finds the model the report checked on disk (see
// modelCandidates).
func (r *Report) ModelPath() (string, error) {
	cands := r.modelCandidates()
	if len(cands) == 0 {
		return "", fmt.Errorf("%s does not say which model it checked: give the model's path", r.Path)
	}
	for _, p := range cands {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is a check of %s, which is not there (looked for %s): give the model's path", r.Path, r.File, strings.Join(cands, " and "))
}

// Bug returns bug n (1-based) of the report as the engine's bug.
func (r *Report) Bug(n int) (*engine.Bug, error) {
	if n < 1 {
		return nil, fmt.Errorf("bug %d: bugs are numbered from 1", n)
	}
	if n > len(r.Bugs) {
		return nil, fmt.Errorf("%s has no bug %d (it has %d)", r.Path, n, len(r.Bugs))
	}
	b := r.Bugs[n-1]
	if len(b.Schedule) == 0 {
		return nil, fmt.Errorf("%s: bug %d has no schedule", r.Path, n)
	}
	bug := &engine.Bug{Kind: engine.BugKind(b.Kind), Message: b.Message, Thread: b.Thread, Range: b.Range.Source(),
		Schedule: b.Schedule, Choices: b.choices(), LocalBudget: b.LocalBudget, NoSpinWait: b.NoSpinWait, SpuriousWakeups: b.SpuriousWakeups}
	if len(bug.Choices) != 0 && len(bug.Choices) != len(bug.Schedule) {
		return nil, fmt.Errorf("%s: bug %d has %d choices for a schedule of %d steps", r.Path, n, len(bug.Choices), len(bug.Schedule))
	}
	if len(b.FullSchedule) > 0 {
		if len(b.FullChoices) != 0 && len(b.FullChoices) != len(b.FullSchedule) {
			return nil, fmt.Errorf("%s: bug %d has %d choices for a whole execution of %d steps", r.Path, n, len(b.FullChoices), len(b.FullSchedule))
		}
		bug.FullSchedule, bug.FullChoices = b.FullSchedule, b.FullChoices
	}
	if b.Other != nil {
		bug.Other = &engine.RaceSide{Thread: b.Other.Thread, Op: b.Other.Op, Range: b.Other.Range.Source()}
	}
	return bug, nil
}

// LoadReport builds the document of bug n (1-based) of the report at
// reportPath. The model is modelPath, or, when that is empty, the one the
// report checked (its file, relative to the report's directory or else to
// the working directory); its text must be the text checked. The
// document's File is the model's absolute path, URI its file URI, BugID
// "REPORT#N" (the report's base name).
func LoadReport(ctx context.Context, reportPath string, n int, modelPath string, opts Options) (*Document, error) {
	reports, err := ReadReports(reportPath)
	if err != nil {
		return nil, err
	}
	if modelPath == "" {
		if len(reports) > 1 {
			return nil, fmt.Errorf("%s holds the checks of %d models: say which model to replay", reportPath, len(reports))
		}
		if modelPath, err = reports[0].ModelPath(); err != nil {
			return nil, err
		}
	}
	src, err := readFile(modelPath, MaxModelSize, "models")
	if err != nil {
		return nil, err
	}
	r, err := Select(reports, modelPath, src)
	if err != nil {
		return nil, err
	}
	bug, err := r.Bug(n)
	if err != nil {
		return nil, err
	}
	ld := lower.Load(modelPath, src)
	if ld.Exec == nil {
		for _, d := range ld.Diagnostics {
			if d.Severity == source.Error {
				return nil, fmt.Errorf("%s:%d:%d: %s", modelPath, d.Range.Start.Line+1, d.Range.Start.Col+1, d.Message)
			}
		}
		return nil, fmt.Errorf("%s does not load", modelPath)
	}
	doc, err := Build(ctx, ld.Exec, bug, opts)
	if err != nil {
		return nil, fmt.Errorf("bug %d of %s: %w", n, reportPath, err)
	}
	if abs, err := filepath.Abs(modelPath); err == nil {
		modelPath = abs
	}
	doc.File = modelPath
	doc.SourceSHA256 = SourceHash(src)
	doc.URI = FileURI(modelPath)
	doc.BugID = fmt.Sprintf("%s#%d", filepath.Base(reportPath), n)
	return doc, nil
}

// FileURI is the file:// URI of an absolute path.
func FileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// ReadModel reads a model's text as LoadReport does: a regular file of
// at most MaxModelSize bytes.
func ReadModel(path string) ([]byte, error) {
	return readFile(path, MaxModelSize, "models")
}

// readFile reads a regular file of at most limit bytes (what names the
// kind of file in the message). Anything else is refused before it is
// opened: a FIFO would block the open (and the reader with it) until
// some writer came, a device such as /dev/zero reads without end, a
// directory does not read at all. The file is opened without blocking
// and checked again once open, in case it was replaced in between.
func readFile(path string, limit int64, what string) ([]byte, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file", path)
	case err != nil:
		return nil, err
	}
	if err := regular(path, st, limit, what); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := regular(path, fst, limit, what); err != nil {
		return nil, err
	}
	if !os.SameFile(st, fst) {
		return nil, fmt.Errorf("%s changed while it was being opened", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than %d bytes; %s are limited to that", path, limit, what)
	}
	return data, nil
}

// regular checks that st is a regular file of at most limit bytes.
func regular(path string, st fs.FileInfo, limit int64, what string) error {
	switch mode := st.Mode(); {
	case mode.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case mode&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a named pipe (FIFO), not a file: %s are read from regular files", path, what)
	case mode&fs.ModeDevice != 0 || mode&fs.ModeCharDevice != 0:
		return fmt.Errorf("%s is a device, not a file: %s are read from regular files", path, what)
	case !mode.IsRegular():
		return fmt.Errorf("%s is not a regular file (%s): %s are read from regular files", path, mode.Type(), what)
	case st.Size() > limit:
		return fmt.Errorf("%s is %d bytes; %s are limited to %d", path, st.Size(), what, limit)
	}
	return nil
}
