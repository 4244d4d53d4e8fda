package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/source"
)

// maxStateSteps bounds the steps of a trace whose state weft.trace gives
// step by step; a longer trace comes with its steps only.
const maxStateSteps = 5000

// traceArrayLimit elides arrays longer than this in a trace's states.
const traceArrayLimit = 64

// ExecuteCommand runs weft.trace, weft.replay, weft.runOptimal, weft.stop
// and weft.showStatus.
func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	args := make([]string, len(params.Arguments))
	for i, a := range params.Arguments {
		if err := json.Unmarshal(a, &args[i]); err != nil {
			return nil, invalidParams("%s: argument %d must be a string", params.Command, i+1)
		}
	}
	need := func(n int) error {
		if len(args) < n {
			return invalidParams("%s needs %d arguments (the document's uri, then the bug id)", params.Command, n)
		}
		return nil
	}
	switch params.Command {
	case cmdTrace, cmdReplay:
		if err := need(2); err != nil {
			return nil, err
		}
		tr, err := s.trace(ctx, uri.URI(args[0]), args[1])
		if err != nil {
			return nil, err
		}
		return rawJSON(tr), nil
	case cmdRunOptimal, cmdStop, cmdShowStatus:
		if err := need(1); err != nil {
			return nil, err
		}
		d := s.doc(uri.URI(args[0]))
		if d == nil {
			return nil, errNoDocument(uri.URI(args[0]))
		}
		switch params.Command {
		case cmdRunOptimal:
			d.runOptimalNow()
		case cmdStop:
			d.stop()
		}
		d.mu.Lock()
		st := d.st
		d.mu.Unlock()
		return rawJSON(st), nil
	}
	return nil, invalidParams("unknown command %q (known: %v)", params.Command, Commands)
}

func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}

// traceJSON is what weft.trace answers: a bug and its counterexample, step
// by step, with the state after each step. Lines and characters are
// 0-based UTF-16, as everywhere in LSP.
type traceJSON struct {
	URI          uri.URI         `json:"uri"`
	Version      int32           `json:"version"`
	BugID        string          `json:"bugId"`
	Kind         string          `json:"kind"`
	Message      string          `json:"message"`
	Range        protocol.Range  `json:"range"`
	Threads      []string        `json:"threads"` // every thread of the execution, in creation order
	Steps        []traceStepJSON `json:"steps"`
	StateOmitted bool            `json:"stateOmitted,omitempty"` // the trace is too long for a state per step
}

type traceStepJSON struct {
	Step    int                 `json:"step"` // 1-based
	Thread  string              `json:"thread"`
	Op      string              `json:"op"`
	Range   protocol.Range      `json:"range"`
	Shared  []engine.NamedValue `json:"shared,omitempty"`
	Locks   []engine.LockState  `json:"locks,omitempty"`
	Threads []threadJSON        `json:"threadStates,omitempty"`
}

type threadJSON struct {
	Name   string              `json:"name"`
	Status string              `json:"status"`
	Range  *protocol.Range     `json:"range,omitempty"` // the statement it runs next
	Locals []engine.NamedValue `json:"locals,omitempty"`
}

func (s *Server) trace(ctx context.Context, u uri.URI, id string) (*traceJSON, error) {
	d := s.doc(u)
	if d == nil {
		return nil, errNoDocument(u)
	}
	d.mu.Lock()
	var b *bugReport
	for _, x := range d.bugs {
		if x.id == id {
			b = x
		}
	}
	d.mu.Unlock()
	if b == nil {
		return nil, invalidParams("no bug %q in %s (the file changed since, or the id is wrong)", id, u)
	}
	out := &traceJSON{URI: u, Version: b.snap.version, BugID: b.id, Kind: string(b.kind), Message: b.message, Range: toRange(b.rng), Steps: []traceStepJSON{}}
	states, err := engine.StepStates(ctx, b.snap.loaded.Exec, b.schedule, b.localBudget, traceArrayLimit, maxStateSteps)
	switch {
	case err == engine.ErrTraceTooLong:
		out.StateOmitted = true
		for i, st := range b.trace {
			out.Steps = append(out.Steps, traceStepJSON{Step: i + 1, Thread: st.Thread, Op: st.Op, Range: toRange(st.Range)})
		}
		out.Threads = threadNames(b.trace)
		return out, nil
	case err != nil && ctx.Err() != nil:
		return nil, protocol.ErrRequestCancelled
	case err != nil:
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "the counterexample does not replay: "+err.Error())
	}
	for _, st := range states {
		step := traceStepJSON{Step: st.Step, Thread: st.Thread, Op: st.Op, Range: toRange(st.Range), Shared: st.Shared, Locks: st.Locks}
		for _, th := range st.Threads {
			tj := threadJSON{Name: th.Name, Status: th.Status, Locals: th.Locals}
			if th.At != (source.Range{}) {
				r := toRange(th.At)
				tj.Range = &r
			}
			step.Threads = append(step.Threads, tj)
		}
		out.Steps = append(out.Steps, step)
	}
	if n := len(states); n > 0 {
		for _, th := range states[n-1].Threads {
			out.Threads = append(out.Threads, th.Name)
		}
	}
	return out, nil
}

func threadNames(steps []engine.TraceStep) []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range steps {
		if !seen[st.Thread] {
			seen[st.Thread] = true
			out = append(out, st.Thread)
		}
	}
	return out
}
