package dap

import (
	"fmt"
	"net/url"
	"path/filepath"

	godap "github.com/google/go-dap"
)

// The replay's position and what moves it: steps, runs to breakpoints,
// goto; the breakpoints; positions in the client's terms.

// move runs a motion of the replay.
func (s *session) move(f func()) error {
	if err := s.movable(); err != nil {
		return err
	}
	f()
	return nil
}

// movable says why the replay cannot move (nil when it can): not
// launched, or its text changed (checkModel).
func (s *session) movable() error {
	if s.doc == nil {
		return errNotLaunched
	}
	if !s.checkModel() {
		return userErrorf("weft: %s", s.stale)
	}
	return nil
}

func (s *session) last() int { return len(s.doc.Steps) }

// forward goes one step on; at the last step it stays and says so again.
func (s *session) forward() {
	s.stopAt(min(s.pos+1, s.last()), "step", nil)
}

// backward goes one step back; at step 1 it stays.
func (s *session) backward() {
	s.stopAt(max(s.pos-1, 1), "step", nil)
}

// runForward goes to the next step on a breakpoint's line, else to the
// last step.
func (s *session) runForward() {
	lines := s.breakpointLines()
	for i := s.pos + 1; i < s.last(); i++ {
		if id, ok := lines[s.doc.Steps[i-1].Range.Start.Line]; ok {
			s.stopAt(i, "breakpoint", []int{id})
			return
		}
	}
	s.stopAt(s.last(), "exception", nil)
}

// runBackward goes to the previous step on a breakpoint's line, else to
// step 1.
func (s *session) runBackward() {
	lines := s.breakpointLines()
	for i := s.pos - 1; i >= 1; i-- {
		if id, ok := lines[s.doc.Steps[i-1].Range.Start.Line]; ok {
			s.stopAt(i, "breakpoint", []int{id})
			return
		}
	}
	s.stopAt(1, "entry", nil)
}

// stopAt moves the replay to step i and sends weftStep and stopped. The
// last step is always a stop on the exception, whatever the reason.
func (s *session) stopAt(i int, reason string, hit []int) {
	s.pos, s.started = i, true
	n := s.last()
	st := &s.doc.Steps[i-1]
	s.emit(eventStep, stepEventBody{Step: i, Steps: n, BugID: s.doc.BugID})
	body := godap.StoppedEventBody{
		Reason:            reason,
		Description:       fmt.Sprintf("step %d of %d", i, n),
		ThreadId:          s.tid[st.Thread],
		Text:              fmt.Sprintf("Step %d of %d: %s %s", i, n, st.Thread, st.Op),
		AllThreadsStopped: true,
		HitBreakpointIds:  hit,
	}
	if i == n {
		body.Reason, body.Description, body.Text, body.HitBreakpointIds = "exception", s.doc.Kind, s.doc.Message, nil
		if id, ok := s.tid[s.doc.Thread]; ok && s.exists(s.doc.Thread, i) {
			body.ThreadId = id
		}
	}
	s.emit("stopped", body)
}

// stepEventBody is the body of weftStep.
type stepEventBody struct {
	Step  int    `json:"step"`
	Steps int    `json:"steps"`
	BugID string `json:"bugId"`
}

func (s *session) gotoStep(req *envelope) error {
	var args struct {
		Step *int `json:"step"`
	}
	if err := decode(req, &args); err != nil {
		return err
	}
	if err := s.movable(); err != nil {
		return err
	}
	if args.Step == nil || *args.Step < 1 || *args.Step > s.last() {
		return errorf("%s: want {\"step\": i} with 1 ≤ i ≤ %d", requestGoto, s.last())
	}
	s.stopAt(*args.Step, "goto", nil)
	return nil
}

func (s *session) gotoTargets(req *envelope) (any, error) {
	var args godap.GotoTargetsArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	if s.doc == nil {
		return nil, errNotLaunched
	}
	targets := []godap.GotoTarget{}
	if s.isModel(args.Source.Path) {
		line := s.fromClientLine(args.Line)
		for _, st := range s.doc.Steps {
			if st.Range.Start.Line == line {
				r := st.Range
				targets = append(targets, godap.GotoTarget{Id: st.Step, Label: fmt.Sprintf("Step %d: %s %s", st.Step, st.Thread, st.Op),
					Line: s.clientLine(r.Start.Line), Column: s.clientColumn(r.Start.Character),
					EndLine: s.clientLine(r.End.Line), EndColumn: s.clientColumn(r.End.Character)})
			}
		}
	}
	return godap.GotoTargetsResponseBody{Targets: targets}, nil
}

func (s *session) gotoTarget(req *envelope) error {
	var args godap.GotoArguments
	if err := decode(req, &args); err != nil {
		return err
	}
	if err := s.movable(); err != nil {
		return err
	}
	if args.TargetId < 1 || args.TargetId > s.last() {
		return errorf("goto: no target %d", args.TargetId)
	}
	s.stopAt(args.TargetId, "goto", nil)
	return nil
}

// terminate sends the terminated event, once.
func (s *session) terminate() {
	if !s.terminated {
		s.terminated = true
		s.emit("terminated", nil)
	}
}

// Breakpoints.

func (s *session) setBreakpoints(req *envelope) (any, error) {
	var args godap.SetBreakpointsArguments
	if err := decode(req, &args); err != nil {
		return nil, err
	}
	lines := args.Lines
	if args.Breakpoints != nil {
		lines = lines[:0]
		for _, b := range args.Breakpoints {
			lines = append(lines, b.Line)
		}
	}
	path := args.Source.Path
	var bps []breakpoint
	out := []godap.Breakpoint{}
	for _, l := range lines {
		s.nextBP++
		bp := breakpoint{id: s.nextBP, line: s.fromClientLine(l)}
		bps = append(bps, bp)
		out = append(out, s.verify(path, bp))
	}
	s.breakpoints[path] = bps
	return godap.SetBreakpointsResponseBody{Breakpoints: out}, nil
}

// verify says whether a breakpoint can stop the replay.
func (s *session) verify(path string, bp breakpoint) godap.Breakpoint {
	b := godap.Breakpoint{Id: bp.id, Line: s.clientLine(bp.line)}
	switch {
	case s.doc == nil:
		b.Message = "no counterexample is loaded yet"
	case !s.isModel(path):
		b.Message = "not the model being replayed"
	default:
		for _, st := range s.doc.Steps {
			if st.Range.Start.Line == bp.line {
				b.Verified = true
				return b
			}
		}
		b.Message = fmt.Sprintf("no step of this counterexample runs line %d", s.clientLine(bp.line))
	}
	return b
}

// breakpointLines maps each line (0-based) with a breakpoint in the model
// to its breakpoint's id.
func (s *session) breakpointLines() map[int]int {
	lines := map[int]int{}
	for path, bps := range s.breakpoints {
		if !s.isModel(path) {
			continue
		}
		for _, bp := range bps {
			if _, ok := lines[bp.line]; !ok {
				lines[bp.line] = bp.id
			}
		}
	}
	return lines
}

// isModel says whether a source path is the model being replayed. When
// the model's path is unknown, a path with the document's file name is
// taken to be it.
func (s *session) isModel(path string) bool {
	if path == "" || s.doc == nil {
		return false
	}
	if s.file != "" {
		return filepath.Clean(path) == filepath.Clean(s.file)
	}
	u, err := url.Parse(s.doc.URI)
	return err == nil && u.Path != "" && filepath.Base(filepath.FromSlash(u.Path)) == filepath.Base(path)
}

// Positions.

func (s *session) clientLine(l int) int {
	if s.linesAt1 {
		return l + 1
	}
	return l
}

func (s *session) fromClientLine(l int) int {
	if s.linesAt1 {
		return l - 1
	}
	return l
}

func (s *session) clientColumn(c int) int {
	if s.columnsAt1 {
		return c + 1
	}
	return c
}
