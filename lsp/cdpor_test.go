package lsp

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/internal/z3"
	"weft/internal/z3/z3test"
)

// The schedule with independence constraints: the quick check runs
// cdpor on a model whose constraints apply (and the hover then counts
// them), qpor on any other or when the cdpor setting is off.
func TestCDPORSchedule(t *testing.T) {
	pi := piModel(t)
	for _, c := range []struct {
		name       string
		file, src  string
		opts       map[string]any
		algo       string
		executions int64
		hover      []string // in the hover of the workers' atomic block
	}{
		// The adds commute in every state where their sums cannot
		// overflow. The conditions that say so over int64 read sum,
		// and cdpor uses no condition on shared memory: the adds stay
		// dependent, 24 traces. cdpor still runs (an add and main's read
		// commute when my_sum == 0, on locals only). The hover shows
		// every condition.
		{"pi", "pi_4.weft", string(pi), map[string]any{}, "cdpor", 24,
			[]string{"(SMT)", "always commute (SMT, assuming no overflow)"}},
		// Assuming no overflow, they always commute: cdpor, 1 execution.
		{"pi assuming no overflow", "pi_4.weft", string(pi), map[string]any{"assumeNoOverflow": true}, "cdpor", 1,
			[]string{"always commute (SMT, assuming no overflow) — held", "times in the explorations so far"}},
		{"pi without cdpor", "pi_4.weft", string(pi), map[string]any{"assumeNoOverflow": true, "cdpor": false}, "qpor", 24, nil},
		{"no constraints apply", "fig1.weft", readExample(t, "fig1.weft"), map[string]any{}, "qpor", 6, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opts["escalate"] = false
			cl := startServer(t, c.opts)
			u := cl.open(c.file, c.src)
			var st status
			cl.waitFor("a complete check", 60*time.Second, func() bool {
				st, _ = cl.latestStatus(u)
				return st.State == stateVerified
			})
			if st.Algorithm != c.algo || st.Executions != c.executions {
				t.Errorf("checked with %s, %d executions; want %s, %d (%s)", st.Algorithm, st.Executions, c.algo, c.executions, st.words())
			}
			if c.hover == nil {
				return
			}
			v := hoverAt(t, cl, u, c.src, "sum = sum + my_sum")
			for _, want := range c.hover {
				if !strings.Contains(v, want) {
					t.Errorf("hover lacks %q:\n%s", want, v)
				}
			}
		})
	}
}

// hoverAt returns the hover of the first occurrence of what in src.
func hoverAt(t *testing.T, cl *testClient, u uri.URI, src, what string) string {
	t.Helper()
	i := strings.Index(src, what)
	if i < 0 {
		t.Fatalf("%q not in the model", what)
	}
	line := strings.Count(src[:i], "\n")
	col := i - (strings.LastIndex(src[:i], "\n") + 1)
	h, err := cl.server.Hover(context.Background(), &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(line), Character: uint32(col)}}})
	if err != nil || h == nil {
		t.Fatalf("hover: %v, %v", h, err)
	}
	return h.Contents.(*protocol.MarkupContent).Value
}

// A change of settings checks the open documents again with the new
// ones: turning cdpor off makes the next check of Pi a qpor one.
func TestSettingsChangeRechecks(t *testing.T) {
	pi := piModel(t)
	cl := startServer(t, map[string]any{"escalate": false, "assumeNoOverflow": true})
	u := cl.open("pi_4.weft", string(pi))
	verifiedWith := func(algo string) func() bool {
		return func() bool {
			st, _ := cl.latestStatus(u)
			return st.State == stateVerified && st.Algorithm == algo
		}
	}
	cl.waitFor("a cdpor check", 60*time.Second, verifiedWith("cdpor"))
	if err := cl.server.DidChangeConfiguration(context.Background(), &protocol.DidChangeConfigurationParams{Settings: rawJSON(map[string]any{"weft": map[string]any{"cdpor": false}})}); err != nil {
		t.Fatal(err)
	}
	cl.waitFor("a qpor check after the change", 60*time.Second, verifiedWith("qpor"))
}

// piModel is the CDPOR port Pi(4), whose conditions come from z3: the
// test is skipped, saying so, without it.
func piModel(t *testing.T) []byte {
	t.Helper()
	if err := z3.Available(z3.Config{}); err != nil {
		z3test.Missing(t, "the SMT conditions of Pi need z3: %v", err)
	}
	pi, err := os.ReadFile("../benchmarks/cdpor/pi_4.weft")
	if err != nil {
		t.Fatal(err)
	}
	return pi
}
