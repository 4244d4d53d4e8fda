package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"weft/analysis"
	"weft/source"
)

// Hover answers what is under the cursor: for a name, what it denotes
// (and, for a shared variable, thread or proc, what the threads do with
// it); for a statement, its visible steps, read and write sets and the
// statements of other threads it is dependent with.
//
// The answer comes from one snapshot: the latest analysed version, its
// facts, and the counts of that version's explorations (the document's
// results). When the version is replaced or the document closes before
// the answer is ready, the answer is ContentModified, never one from the
// older text.
func (s *Server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	d, snap, err := s.docSnapshotFor(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	h, err := hoverOn(ctx, snap, &d.results, params)
	if err == nil && snap.ctx.Err() != nil {
		return nil, snap.superseded()
	}
	return h, err
}

// hoverOn is the hover of params on snap, with the counts of res.
func hoverOn(ctx context.Context, snap *snapshot, res *results, params *protocol.HoverParams) (*protocol.Hover, error) {
	if snap.loaded == nil {
		return nil, nil
	}
	facts, missing, err := snap.facts(ctx)
	if err != nil {
		return nil, err
	}
	pos := snap.pos(params.Position)
	var b strings.Builder
	var rng *protocol.Range
	prog := snap.loaded.Program
	if id := prog.IdentAt(pos); id != nil {
		if obj := prog.Uses[id]; obj != nil {
			writeObject(&b, prog, obj)
			r := toRange(source.Range{Start: id.Pos(), End: id.End()})
			rng = &r
			if facts != nil {
				facts.describeObject(&b, obj)
			}
		}
	}
	if facts != nil {
		var sb strings.Builder
		if r, ok := facts.describeStatement(&sb, pos, string(params.TextDocument.URI), snap.readyConstraints(), res.indepStats(snap.version)); ok {
			if b.Len() > 0 {
				b.WriteString("\n---\n\n")
			} else {
				pr := toRange(r)
				rng = &pr
			}
			b.WriteString(sb.String())
		}
	} else if missing != "" && b.Len() > 0 {
		// Say why the hover has no steps or interference, rather than
		// leaving the user to guess.
		b.WriteString("\n---\n\n*No step facts:* " + strings.TrimPrefix(missing, "access: ") + ".\n")
	}
	if b.Len() == 0 {
		return nil, nil
	}
	h := &protocol.Hover{Contents: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: b.String()}}
	if rng != nil {
		h.Range = rng
	}
	return h, nil
}

// writeObject says what obj is, in a code block and a line of words.
func writeObject(b *strings.Builder, prog *analysis.Program, obj *analysis.Object) {
	typ := ""
	if obj.Type != nil {
		typ = obj.Type.String()
	}
	b.WriteString("```weft\n")
	switch obj.Kind {
	case analysis.Const:
		fmt.Fprintf(b, "const %s = %s\n", obj.Name, obj.Value)
	case analysis.SharedVar:
		atomic := ""
		if obj.Atomic {
			atomic = "atomic "
		}
		fmt.Fprintf(b, "var %s %s%s\n", obj.Name, atomic, typ)
	case analysis.LocalVar, analysis.Param:
		fmt.Fprintf(b, "var %s %s\n", obj.Name, typ)
	case analysis.LoopVar, analysis.ThreadIndex:
		fmt.Fprintf(b, "%s int\n", obj.Name)
	case analysis.Thread:
		if obj.IsArray {
			fmt.Fprintf(b, "thread %s[%d..%d]\n", obj.Name, obj.Lo, obj.Hi)
		} else {
			fmt.Fprintf(b, "thread %s\n", obj.Name)
		}
	case analysis.Proc:
		var ps []string
		for _, p := range obj.Params {
			pt := ""
			if p.Type != nil {
				pt = " " + p.Type.String()
			}
			ps = append(ps, p.Name+pt)
		}
		fmt.Fprintf(b, "proc %s(%s)\n", obj.Name, strings.Join(ps, ", "))
	case analysis.Func:
		var ps []string
		for _, p := range obj.Params {
			pt := ""
			if p.Type != nil {
				pt = " " + p.Type.String()
			}
			ps = append(ps, p.Name+pt)
		}
		res := ""
		if obj.Result != nil {
			res = " " + obj.Result.String()
		}
		fmt.Fprintf(b, "func %s(%s)%s\n", obj.Name, strings.Join(ps, ", "), res)
	default:
		fmt.Fprintf(b, "%s\n", obj.Name)
	}
	b.WriteString("```\n\n")
	switch obj.Kind {
	case analysis.Thread:
		if obj.IsArray {
			fmt.Fprintf(b, "A thread array of %d instances (%s[%d] … %s[%d]).\n", obj.Hi-obj.Lo, obj.Name, obj.Lo, obj.Name, obj.Hi-1)
		} else {
			b.WriteString("A declared thread: it starts with the program.\n")
		}
	case analysis.Proc:
		b.WriteString("A proc: each `spawn` of it starts a new thread.\n")
	case analysis.Func:
		b.WriteString("A function: a call runs it in the calling thread, with its own locals.\n")
	case analysis.LocalVar, analysis.Param, analysis.LoopVar:
		owner := ""
		if obj.Owner != nil {
			owner = " of " + obj.Owner.Name
		}
		fmt.Fprintf(b, "A %s%s: each thread has its own; never shared.\n", obj.Kind, owner)
	case analysis.ThreadIndex:
		fmt.Fprintf(b, "The index of this instance of the thread array.\n")
	case analysis.Const:
		b.WriteString("A constant.\n")
	}
}
