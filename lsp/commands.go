package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/engine"
	"weft/replay"
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
		all := false
		switch {
		case len(args) == 3 && args[2] == traceAllSteps:
			all = true
		case len(args) > 2:
			return nil, invalidParams("%s takes the document's uri, the bug id and optionally %q (the whole execution, not the bug's causal slice); got %d arguments", params.Command, traceAllSteps, len(args))
		}
		tr, err := s.trace(ctx, uri.URI(args[0]), args[1], all)
		if err != nil {
			return nil, err
		}
		if params.Command == cmdReplay && !s.caps.weft.replay {
			s.showReplay(uri.URI(args[0]), tr)
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
		if params.Command == cmdShowStatus && !s.caps.weft.status {
			// The status lens, clicked in a client that does not show
			// weft/status: say the status where it can be read whole.
			msg := st.Message
			if msg == "" {
				msg = "not checked yet"
			}
			for _, w := range st.Warnings {
				msg += "\n" + w
			}
			_ = s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "weft: " + docName(d.uri) + ": " + msg})
		}
		return rawJSON(st), nil
	}
	return nil, invalidParams("unknown command %q (known: %v)", params.Command, Commands)
}

func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}

// traceAllSteps, as weft.trace's third argument, asks for the whole
// execution of a bug instead of its causal slice ("show all steps").
const traceAllSteps = "allSteps"

// trace is what weft.trace answers: the counterexample document of
// package replay for bug id of the document at u: the bug's causal
// slice, or with all the whole execution it was sliced from
// (engine.Bug.Full; the slice itself when nothing was left out).
func (s *Server) trace(ctx context.Context, u uri.URI, id string, all bool) (*replay.Document, error) {
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
	bug := &engine.Bug{Kind: b.kind, Message: b.message, Thread: b.thread, Range: b.rng, Other: b.other,
		Schedule: b.schedule, Choices: b.replayOpts.Choices, LocalBudget: b.replayOpts.LocalBudget,
		NoSpinWait: b.replayOpts.NoSpinWait, SpuriousWakeups: b.replayOpts.SpuriousWakeups,
		FullSchedule: b.fullSchedule, FullChoices: b.fullChoices}
	if all {
		bug = bug.Full()
	}
	out, err := replay.Build(ctx, b.snap.loaded.Exec, bug, replay.Options{ArrayLimit: traceArrayLimit, MaxStateSteps: maxStateSteps})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, protocol.ErrRequestCancelled
	case err != nil:
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	out.URI, out.Version, out.BugID, out.AllSteps = string(u), b.snap.version, b.id, all
	out.SourceSHA256 = replay.SourceHash(b.snap.text)
	if u.Scheme() == "file" {
		out.File = u.FsPath()
	}
	return out, nil
}
