package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"weft/engine"
	"weft/engine/ir"
	"weft/source"
)

// The hover of a statement gives, for each statement it may interfere
// with, the conditions under which they commute and their origin; no
// counts until an exploration has counted them.
func TestHoverConditions(t *testing.T) {
	c := startServer(t, map[string]any{"escalate": false})
	u := c.open("fig1.weft", readExample(t, "fig1.weft"))
	h, err := c.server.Hover(context.Background(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: 21, Character: 10}}})
	if err != nil || h == nil {
		t.Fatalf("hover: %v, %v", h, err)
	}
	v := h.Contents.(*protocol.MarkupContent).Value
	for _, want := range []string{"write x[w]", "commute when `w != i` (rule: index)", "commute when `w != i || x[i] != 0` (rule: index+branch-write)"} {
		if !strings.Contains(v, want) {
			t.Errorf("hover lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "held") {
		t.Errorf("counts without an exploration that counted:\n%s", v)
	}
}

// With the counts of an exploration, the hover says how often each
// condition held; the engine's own conditions appear counted.
func TestHoverCounts(t *testing.T) {
	src := `var x int
thread a {
    var v int = 1
    atomic {
        x = v
    }
}
thread b {
    var r int = x
}
`
	snap := newSnapshot(context.Background(), "/test/counts.weft", 1, []byte(src))
	f, _, err := snap.facts(context.Background())
	if err != nil || f == nil || f.ind == nil {
		t.Fatal("no facts")
	}
	var atomicSt, readSt = f.sum.StatementAt(source.Pos{Offset: strings.Index(src, "atomic")}), f.sum.StatementAt(source.Pos{Offset: strings.Index(src, "var r")})
	sa, sb := f.ind.Sites(atomicSt), f.ind.Sites(readSt)
	if len(sa) != 1 || len(sb) != 1 {
		t.Fatalf("sites %v %v", sa, sb)
	}
	var res results
	res.setIndependence(snap.version, []engine.IndepStat{
		{Pair: [2]ir.Site{sb[0], sa[0]}, Origin: "read-write", Text: "x == v", Checked: 5, Held: 3},
		{Pair: [2]ir.Site{sa[0], sb[0]}, Origin: "same-value", Text: "x == 1", Checked: 2, Held: 1},
	})
	var b strings.Builder
	if _, ok := f.describeStatement(&b, source.Pos{Offset: strings.Index(src, "var r")}, "file:///test/counts.weft", nil, res.indepStats(snap.version)); !ok {
		t.Fatal("no statement")
	}
	v := b.String()
	for _, want := range []string{
		"commute when `x == v` (rule: read-write) — held 3 of 5 times in the explorations so far",
		"commute when `x == 1` (engine: same-value) — held 1 of 2 times in the explorations so far",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("hover lacks %q:\n%s", want, v)
		}
	}
}
