//go:build linux

package lsp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// soakSnippets are what the soak test types: valid and invalid Weft, and
// text outside ASCII (é is one UTF-16 unit, 😀 two, 注 one of three
// bytes).
var soakSnippets = []string{
	"var y int\n", "var n mutex\n", "thread s {\n    y = y + 1\n}\n", "lock(m)\n", "unlock(m)\n", "}", "{", "\n",
	"c = c + 1\n", "assert c == 2\n", "// é😀 ünïcode 注释\n", "😀", "é", "注", "thread w[i in 0..3] {\n", "\"",
	"if c > 0 {\n", "for j in 0..2 {\n", "(", ")", "spawn", "join incr[0]\n", "x", " ", "    ",
}

// mirror is the client's copy of a document: the text, and positions in
// LSP's terms (line, UTF-16 column).
type mirror struct{ text string }

// position is the LSP position of byte offset off (a rune boundary).
func (m *mirror) position(off int) (line, col uint32) {
	start := strings.LastIndexByte(m.text[:off], '\n') + 1
	line = uint32(strings.Count(m.text[:start], "\n"))
	for _, r := range m.text[start:off] {
		col += uint32(utf16.RuneLen(r))
	}
	return line, col
}

// runeBoundary moves off back to the start of its rune.
func (m *mirror) runeBoundary(off int) int {
	for off > 0 && off < len(m.text) && !utf8.RuneStart(m.text[off]) {
		off--
	}
	return off
}

// randomEdit makes an edit of m at random (an insertion, a deletion or a
// replacement of up to 40 bytes), applies it to m and returns it.
func (m *mirror) randomEdit(rng *rand.Rand) protocol.TextDocumentContentChangeEvent {
	start := m.runeBoundary(rng.IntN(len(m.text) + 1))
	end := start
	insert := soakSnippets[rng.IntN(len(soakSnippets))]
	// Past 8 kB, delete more than insert, so the text stays of a size.
	deleteBias := 3
	if len(m.text) > 8<<10 {
		deleteBias = 1
	}
	switch rng.IntN(deleteBias + 1) {
	case 0: // delete
		end = m.runeBoundary(min(len(m.text), start+1+rng.IntN(40)))
		insert = ""
	case 1: // replace
		end = m.runeBoundary(min(len(m.text), start+rng.IntN(10)))
	}
	l1, c1 := m.position(start)
	l2, c2 := m.position(end)
	m.text = m.text[:start] + insert + m.text[end:]
	return partial(l1, c1, l2, c2, insert)
}

// end is the LSP position of the end of the text.
func (m *mirror) end() (uint32, uint32) { return m.position(len(m.text)) }

// rssKB reads a process's resident set (VmRSS) or peak (VmHWM) in kB.
func rssKB(t testing.TB, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the server's memory: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("%s: %q: %v", field, line, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// soakEdits is the number of edits of the soak test.
const soakEdits = 10_000

// soakRSSCeilingMB is the resident set the server must stay under.
const soakRSSCeilingMB = 500

// 10,000 random edits (insertions, deletions, replacements of valid and
// invalid Weft, some outside ASCII, at random UTF-16 positions) through
// the subprocess server; every 1,000 edits, the whole text replaced by a
// model whose check runs long, and a pause until the check starts (the
// next edit cancels it). At the end the server
// answers a request within 2 s, has the same text as the client (a
// replacement of the whole text by the client's idea of its extent leaves
// nothing behind), and its resident memory stays under 500 MB.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test (10,000 edits) is skipped under -short")
	}
	c := startServer(t, map[string]any{"idleDelayMs": 100, "quickBudgetMs": 500})
	rss := soak(t, c, soakEdits, rand.New(rand.NewPCG(1, 2)))
	t.Logf("server RSS: %d MB before the edits, %d MB after, peak %d MB", rss.before>>10, rss.after>>10, rss.peak>>10)
	if rss.after>>10 > soakRSSCeilingMB {
		t.Errorf("the server's RSS is %d MB after %d edits, over %d MB", rss.after>>10, soakEdits, soakRSSCeilingMB)
	}
}

type soakRSS struct{ before, after, peak int } // kB

func soak(t testing.TB, c *testClient, edits int, rng *rand.Rand) soakRSS {
	t.Helper()
	pid := c.cmd.Process.Pid
	m := &mirror{text: lostUpdateFixed}
	u := c.open("soak.weft", m.text)
	c.waitFor("the first diagnostics", 10*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == 1
	})
	var rss soakRSS
	rss.before = rssKB(t, pid, "VmRSS")

	start := time.Now()
	var lensLatencies []time.Duration
	version := int32(1)
	for i := 1; i <= edits; i++ {
		version++
		c.change(u, version, m.randomEdit(rng))
		if i%10 == 0 {
			time.Sleep(time.Millisecond) // a fast typist, so that many versions are analysed
		}
		if i%1000 == 0 {
			// A request in the stream of edits; the diagnostics of the
			// version typed; a pause for a check to start.
			t0 := time.Now()
			if _, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
				t.Fatalf("codeLens after %d edits: %v", i, err)
			}
			lensLatencies = append(lensLatencies, time.Since(t0))
			v := version
			c.waitFor(fmt.Sprintf("the diagnostics of version %d", v), 10*time.Second, func() bool {
				p, ok := c.latestDiags(u)
				return ok && p.version == v
			})
			// Replace the whole text, as far as the client knows it, by a
			// model whose check runs long: no error may be left (the
			// server's text is the client's), and a check starts, which
			// the next edits cancel.
			l, col := m.end()
			version++
			c.change(u, version, partial(0, 0, l, col, slowModel))
			m.text = slowModel
			v = version
			c.waitFor(fmt.Sprintf("a check of version %d", v), 10*time.Second, func() bool {
				st, ok := c.latestStatus(u)
				return ok && st.Version == v && st.State == stateChecking && !st.Waiting
			})
			if p, _ := c.latestDiags(u); p.version != v || len(p.diags) > 0 {
				t.Fatalf("after %d edits and a replacement of the whole text, version %d has diagnostics %+v: the server's text is not the client's", i, p.version, p.diags)
			}
		}
	}
	elapsed := time.Since(start)

	// Replace the whole text, as the client sees its extent, by a model
	// that formats to lostUpdateFixed.
	l, col := m.end()
	version++
	unformatted := strings.ReplaceAll(lostUpdateFixed, "    ", "  ")
	c.change(u, version, partial(0, 0, l, col, unformatted))
	m.text = unformatted
	t0 := time.Now()
	edits2, err := c.server.Formatting(context.Background(), &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatalf("formatting after the soak: %v", err)
	}
	answered := time.Since(t0)
	if answered > 2*time.Second {
		t.Errorf("a request after the soak took %v, want under 2 s", answered)
	}
	el, ecol := m.end()
	if len(edits2) != 1 || edits2[0].NewText != lostUpdateFixed || edits2[0].Range.End.Line != el || edits2[0].Range.End.Character != ecol {
		t.Errorf("after the soak the server's text is not the client's: formatting answered %+v, want one edit to (%d, %d) giving lostUpdateFixed", edits2, el, ecol)
	}
	final := version
	c.waitFor("clean diagnostics of the last version", 10*time.Second, func() bool {
		p, ok := c.latestDiags(u)
		return ok && p.version == final && len(p.diags) == 0
	})
	rss.after = rssKB(t, pid, "VmRSS")
	rss.peak = rssKB(t, pid, "VmHWM")
	lensLatencies = append(lensLatencies, 0)
	sort.Slice(lensLatencies, func(i, j int) bool { return lensLatencies[i] < lensLatencies[j] })
	c.mu.Lock()
	versions := map[int32]bool{}
	for _, p := range c.diags {
		versions[p.version] = true
	}
	checks := 0
	for _, st := range c.statuses {
		if st.State == stateChecking && !st.Waiting {
			checks++
		}
	}
	c.mu.Unlock()
	t.Logf("%d edits in %v (%d versions analysed and published, %d checks started); codeLens amid them: max %v; formatting after them: %v",
		edits, elapsed.Round(time.Millisecond), len(versions), checks, lensLatencies[len(lensLatencies)-1].Round(time.Microsecond), answered.Round(time.Microsecond))
	return rss
}
