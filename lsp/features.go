package lsp

import (
	"context"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/analysis/query"
	"weft/source"
)

// The requests every language server answers, from analysis/query on the
// latest snapshot.

func (s *Server) Definition(ctx context.Context, params *protocol.DefinitionParams) (protocol.DefinitionResult, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	r, ok := query.Definition(snap.loaded.Program, snap.pos(params.Position))
	if !ok {
		return nil, nil
	}
	return &protocol.Location{URI: params.TextDocument.URI, Range: toRange(r)}, nil
}

func (s *Server) References(ctx context.Context, params *protocol.ReferenceParams) ([]protocol.Location, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	var out []protocol.Location
	for _, r := range query.References(snap.loaded.Program, snap.pos(params.Position), params.Context.IncludeDeclaration) {
		out = append(out, protocol.Location{URI: params.TextDocument.URI, Range: toRange(r)})
	}
	return out, nil
}

func (s *Server) DocumentHighlight(ctx context.Context, params *protocol.DocumentHighlightParams) ([]protocol.DocumentHighlight, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	var out []protocol.DocumentHighlight
	for _, h := range query.Highlights(snap.loaded.Program, snap.pos(params.Position)) {
		out = append(out, protocol.DocumentHighlight{Range: toRange(h.Range), Kind: protocol.DocumentHighlightKind(h.Kind)})
	}
	return out, nil
}

func (s *Server) PrepareRename(ctx context.Context, params *protocol.PrepareRenameParams) (protocol.PrepareRenameResult, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	r, name, err := query.PrepareRename(snap.file, snap.loaded.Program, snap.pos(params.Position))
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	return &protocol.PrepareRenamePlaceholder{Range: toRange(r), Placeholder: name}, nil
}

func (s *Server) Rename(ctx context.Context, params *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	edits, err := query.Rename(snap.file, snap.loaded.Program, snap.pos(params.Position), params.NewName)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	var tes []protocol.TextEdit
	for _, e := range edits {
		tes = append(tes, protocol.TextEdit{Range: toRange(e.Range), NewText: e.NewText})
	}
	return &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{params.TextDocument.URI: tes}}, nil
}

func symbolKind(k query.Kind) protocol.SymbolKind {
	switch k {
	case query.KindConst:
		return protocol.SymbolKindConstant
	case query.KindSharedVar:
		return protocol.SymbolKindVariable
	case query.KindThread, query.KindThreadArray:
		return protocol.SymbolKindClass
	case query.KindProc, query.KindFunc:
		return protocol.SymbolKindFunction
	case query.KindParam, query.KindThreadIndex:
		return protocol.SymbolKindTypeParameter
	}
	return protocol.SymbolKindVariable
}

func documentSymbols(syms []query.Symbol) []protocol.DocumentSymbol {
	out := make([]protocol.DocumentSymbol, 0, len(syms))
	for _, sym := range syms {
		ds := protocol.DocumentSymbol{
			Name: sym.Name, Kind: symbolKind(sym.Kind),
			Range: toRange(sym.Range), SelectionRange: toRange(sym.SelectionRange),
			Children: documentSymbols(sym.Children),
		}
		if sym.Detail != "" {
			d := sym.Detail
			ds.Detail = &d
		}
		out = append(out, ds)
	}
	return out
}

func (s *Server) DocumentSymbol(ctx context.Context, params *protocol.DocumentSymbolParams) (protocol.DocumentSymbolResult, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	return protocol.DocumentSymbolSlice(documentSymbols(query.Symbols(snap.loaded.Program))), nil
}

func (s *Server) FoldingRanges(ctx context.Context, params *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	var out []protocol.FoldingRange
	for _, f := range query.FoldingRanges(snap.file, snap.loaded.File) {
		fr := protocol.FoldingRange{StartLine: uint32(f.StartLine), EndLine: uint32(f.EndLine), Kind: protocol.FoldingRangeKindRegion}
		if f.Kind == query.FoldComment {
			fr.Kind = protocol.FoldingRangeKindComment
		}
		out = append(out, fr)
	}
	return out, nil
}

func completionKind(k query.Kind) protocol.CompletionItemKind {
	switch k {
	case query.KindConst:
		return protocol.CompletionItemKindConstant
	case query.KindThread, query.KindThreadArray:
		return protocol.CompletionItemKindClass
	case query.KindProc, query.KindFunc:
		return protocol.CompletionItemKindFunction
	case query.KindKeyword:
		return protocol.CompletionItemKindKeyword
	case query.KindType:
		return protocol.CompletionItemKindTypeParameter
	}
	return protocol.CompletionItemKindVariable
}

func (s *Server) Completion(ctx context.Context, params *protocol.CompletionParams) (protocol.CompletionResult, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	items, repl := query.Complete(snap.file, snap.loaded.Program, snap.pos(params.Position))
	out := make([]protocol.CompletionItem, 0, len(items))
	for i, it := range items {
		ci := protocol.CompletionItem{
			Label: it.Label, Kind: completionKind(it.Kind),
			SortText: protocol.NewOptional(sortKey(i)),
			TextEdit: &protocol.TextEdit{Range: toRange(repl), NewText: it.Label},
		}
		if it.Detail != "" {
			ci.Detail = protocol.NewOptional(it.Detail)
		}
		out = append(out, ci)
	}
	return &protocol.CompletionList{Items: out}, nil
}

// sortKey keeps the query's order (innermost names first) in clients that
// sort by sortText.
func sortKey(i int) string {
	const digits = "0123456789"
	b := []byte("00000")
	for j := len(b) - 1; j >= 0 && i > 0; j-- {
		b[j] = digits[i%10]
		i /= 10
	}
	return string(b)
}

func (s *Server) SignatureHelp(ctx context.Context, params *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	sig, ok := query.SignatureHelp(snap.file, snap.loaded.Program, snap.pos(params.Position))
	if !ok {
		return nil, nil
	}
	info := protocol.SignatureInformation{Label: sig.Label}
	for _, p := range sig.Params {
		info.Parameters = append(info.Parameters, protocol.ParameterInformation{Label: protocol.ParameterInformationLabelTuple{uint32(p.Start), uint32(p.End)}})
	}
	zero := uint32(0)
	help := &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveSignature: &zero}
	if sig.Active >= 0 && sig.Active < len(sig.Params) {
		help.ActiveParameter = protocol.NewNullable(uint32(sig.Active))
	}
	return help, nil
}

func (s *Server) InlayHint(ctx context.Context, params *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	snap, err := s.latestSnapshot(ctx, params.TextDocument.URI)
	if err != nil || snap == nil || snap.loaded == nil {
		return nil, err
	}
	rng := source.Range{Start: snap.pos(params.Range.Start), End: snap.pos(params.Range.End)}
	var out []protocol.InlayHint
	for _, h := range query.InlayHints(snap.loaded.Program, rng) {
		l, r := h.PaddingLeft, h.PaddingRight
		out = append(out, protocol.InlayHint{
			Position: toRange(source.Range{Start: h.Pos, End: h.Pos}).Start,
			Label:    protocol.String(h.Label), Kind: protocol.InlayHintKind(h.Kind),
			PaddingLeft: &l, PaddingRight: &r,
		})
	}
	return out, nil
}

// semanticLegend is the legend of the semantic tokens: Weft's own token
// types (sharedVariable, mutex, thread…), which the VS Code extension
// declares with their standard supertypes, and LSP's standard modifiers.
func semanticLegend() protocol.SemanticTokensLegend {
	var types []string
	for _, t := range query.TokenTypes() {
		types = append(types, t.String())
	}
	return protocol.SemanticTokensLegend{TokenTypes: types, TokenModifiers: query.TokenModNames()}
}

// standardLegend is the legend for a client that names only LSP's
// standard token types: each Weft type as the standard one it refines.
func standardLegend() (protocol.SemanticTokensLegend, []uint32) {
	var types []string
	index := make([]uint32, 0, len(query.TokenTypes()))
	for _, t := range query.TokenTypes() {
		name := t.Standard()
		i := slices.Index(types, name)
		if i < 0 {
			i = len(types)
			types = append(types, name)
		}
		index = append(index, uint32(i))
	}
	return protocol.SemanticTokensLegend{TokenTypes: types, TokenModifiers: query.TokenModNames()}, index
}

func (s *Server) SemanticTokensFull(ctx context.Context, params *protocol.SemanticTokensParams) (*protocol.SemanticTokens, error) {
	snap, err := s.snapshotFor(ctx, params.TextDocument.URI)
	if err != nil || snap.loaded == nil {
		return nil, err
	}
	s.mu.Lock()
	index := s.tokenIndex
	s.mu.Unlock()
	toks := query.SemanticTokens(snap.file, snap.loaded.Program)
	data := make([]uint32, 0, 5*len(toks))
	line, col := 0, 0
	for _, t := range toks {
		if t.Range.End.Line != t.Range.Start.Line || t.Range.End.Col <= t.Range.Start.Col {
			continue
		}
		dl := t.Range.Start.Line - line
		dc := t.Range.Start.Col
		if dl == 0 {
			dc -= col
		}
		typ := uint32(t.Type)
		if index != nil {
			typ = index[t.Type]
		}
		data = append(data, uint32(dl), uint32(dc), uint32(t.Range.End.Col-t.Range.Start.Col), typ, uint32(t.Mods))
		line, col = t.Range.Start.Line, t.Range.Start.Col
	}
	return &protocol.SemanticTokens{Data: data}, nil
}
