package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"weft/grammar"
	"weft/source"
)

// Formatting answers the whole document in the canonical layout (what
// `weft fmt` prints), as one edit; nothing when the file has syntax errors
// or is already formatted.
func (s *Server) Formatting(ctx context.Context, params *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	if snap.loaded == nil {
		return nil, nil
	}
	out, err := grammar.Format(snap.loaded.File, snap.text)
	if err != nil || string(out) == string(snap.text) {
		return nil, nil
	}
	end := snap.file.Pos(len(snap.text))
	return []protocol.TextEdit{{
		Range:   toRange(source.Range{Start: source.Pos{}, End: end}),
		NewText: string(out),
	}}, nil
}
