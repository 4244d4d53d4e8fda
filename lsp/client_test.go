package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"weft/internal/testbin"
)

// weft is built once for the tests that run the server as a subprocess.
var weft testbin.Binary

func buildWeft(t testing.TB) string { return weft.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	weft.Remove()
	os.Exit(code)
}

// pubDiags is one publishDiagnostics the client received.
type pubDiags struct {
	at      time.Time
	uri     uri.URI
	version int32
	hasVer  bool
	diags   []protocol.Diagnostic
}

// testClient is an LSP client for tests: it records what the server
// sends and answers the server's requests.
type testClient struct {
	t      testing.TB
	conn   jsonrpc2.Conn
	server protocol.Server
	cmd    *exec.Cmd
	stderr *strings.Builder

	mu         sync.Mutex
	changed    chan struct{}
	diags      []pubDiags
	statuses   []status
	logs       []string
	refreshes  int
	progress   []string
	progCreate int
	// custom counts the custom notifications (weft/…) received.
	custom         int
	inlayRefreshes int
	showDocs       []protocol.ShowDocumentParams
	shownMessages  []string // window/showMessage only
}

// clientConfig says what a test client declares and how its server runs.
type clientConfig struct {
	noWeftStatus bool     // do not opt in to weft/status
	noWeftReplay bool     // do not say that the client replays weft.replay's answer itself
	showDocument bool     // declare window/showDocument support
	env          []string // added to the server's environment
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

// startServer runs `weft lsp --stdio` and initializes it with opts as
// initializationOptions.
func startServer(t testing.TB, opts map[string]any) *testClient {
	t.Helper()
	return startServerWith(t, opts, clientConfig{})
}

// startServerWith is startServer with a client that declares cfg.
func startServerWith(t testing.TB, opts map[string]any, cfg clientConfig) *testClient {
	t.Helper()
	bin := buildWeft(t)
	cmd := exec.Command(bin, "lsp", "--stdio")
	if cfg.env != nil {
		cmd.Env = append(os.Environ(), cfg.env...)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &testClient{t: t, cmd: cmd, stderr: &strings.Builder{}, changed: make(chan struct{})}
	cmd.Stderr = syncWriter{&c.mu, c.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.connect(rwc{stdout, stdin})
	t.Cleanup(func() {
		c.shutdown()
		if t.Failed() {
			c.mu.Lock()
			t.Logf("server stderr:\n%s", c.stderr.String())
			c.mu.Unlock()
		}
	})
	c.initializeWith(opts, cfg)
	return c
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (c *testClient) connect(rw io.ReadWriteCloser) {
	// The server's stream, not the library's header stream: that one
	// reads every frame into one buffer it reuses, and a result decoded
	// from it ([]CommandOrCodeAction) kept strings of the frames after it
	// (a code action's title read "s/refresh\",\"id\":5}…").
	c.conn = jsonrpc2.NewConn(newStream(rw, rw, rw, func(error) {}), jsonrpc2.WithCodec(codec{}))
	inner := protocol.ClientHandler(c, jsonrpc2.MethodNotFoundHandler)
	c.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if strings.HasPrefix(req.Method(), "weft/") {
			c.record(func() { c.custom++ })
		}
		if req.Method() == "weft/status" {
			var st status
			if err := json.Unmarshal(req.Params(), &st); err != nil {
				c.t.Errorf("weft/status: %v", err)
			}
			c.record(func() { c.statuses = append(c.statuses, st) })
			return nil, nil
		}
		return inner(ctx, req)
	})
	c.server = protocol.ServerDispatcher(c.conn)
}

func (c *testClient) initializeWith(opts map[string]any, cfg clientConfig) {
	t := true
	params := &protocol.InitializeParams{}
	params.Capabilities.Window = &protocol.WindowClientCapabilities{WorkDoneProgress: &t}
	if cfg.showDocument {
		params.Capabilities.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	}
	params.Capabilities.Experimental = rawJSON(map[string]bool{"weftStatus": !cfg.noWeftStatus, "weftReplay": !cfg.noWeftReplay})
	params.Capabilities.Workspace = &protocol.WorkspaceClientCapabilities{
		CodeLens:  &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: &t},
		InlayHint: &protocol.InlayHintWorkspaceClientCapabilities{RefreshSupport: &t},
	}
	params.Capabilities.TextDocument = &protocol.TextDocumentClientCapabilities{PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{DiagnosticsCapabilities: protocol.DiagnosticsCapabilities{RelatedInformation: &t}}}
	if opts != nil {
		params.InitializationOptions = rawJSON(opts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.server.Initialize(ctx, params); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	if err := c.server.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		c.t.Fatalf("initialized: %v", err)
	}
}

func (c *testClient) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.server.Shutdown(ctx)
	_ = c.server.Exit(ctx)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.t.Errorf("the server did not exit within 5 s of exit")
		_ = c.cmd.Process.Kill()
		<-done
	}
	_ = c.conn.Close()
}

func (c *testClient) record(f func()) {
	c.mu.Lock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// waitFor waits until cond (called with c.mu held) holds.
func (c *testClient) waitFor(what string, timeout time.Duration, cond func() bool) {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			c.mu.Lock()
			defer c.mu.Unlock()
			c.t.Fatalf("timed out after %v waiting for %s; last statuses: %v", timeout, what, lastStatuses(c.statuses, 3))
		}
	}
}

func lastStatuses(sts []status, n int) []string {
	var out []string
	for _, st := range sts[max(0, len(sts)-n):] {
		out = append(out, fmt.Sprintf("v%d %s %q", st.Version, st.State, st.Message))
	}
	return out
}

// latestDiags returns the last diagnostics published for u (c.mu held).
func (c *testClient) latestDiags(u uri.URI) (pubDiags, bool) {
	for i := len(c.diags) - 1; i >= 0; i-- {
		if c.diags[i].uri == u {
			return c.diags[i], true
		}
	}
	return pubDiags{}, false
}

// latestStatus returns the last status for u (c.mu held).
func (c *testClient) latestStatus(u uri.URI) (status, bool) {
	for i := len(c.statuses) - 1; i >= 0; i-- {
		if c.statuses[i].URI == u {
			return c.statuses[i], true
		}
	}
	return status{}, false
}

func (c *testClient) open(name, text string) uri.URI {
	c.t.Helper()
	u := uri.URI("file:///test/" + name)
	err := c.server.DidOpen(context.Background(), &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "weft", Version: 1, Text: text},
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return u
}

func (c *testClient) change(u uri.URI, version int32, changes ...protocol.TextDocumentContentChangeEvent) {
	c.t.Helper()
	err := c.server.DidChange(context.Background(), &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: changes,
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

func whole(text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}

func partial(l1, c1, l2, c2 uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}},
		Text:  text,
	}
}

// The protocol.Client methods: record what matters, accept the rest.

func (c *testClient) Progress(_ context.Context, p *protocol.ProgressParams) error {
	c.record(func() { c.progress = append(c.progress, string(p.Value)) })
	return nil
}
func (c *testClient) LogTrace(context.Context, *protocol.LogTraceParams) error { return nil }
func (c *testClient) RegisterCapability(context.Context, *protocol.RegistrationParams) error {
	return nil
}
func (c *testClient) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}
func (c *testClient) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	c.record(func() {
		c.logs = append(c.logs, p.Message)
		c.shownMessages = append(c.shownMessages, p.Message)
	})
	return nil
}
func (c *testClient) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (c *testClient) LogMessage(_ context.Context, p *protocol.LogMessageParams) error {
	c.record(func() { c.logs = append(c.logs, p.Message) })
	return nil
}
func (c *testClient) ShowDocument(_ context.Context, p *protocol.ShowDocumentParams) (*protocol.ShowDocumentResult, error) {
	c.record(func() { c.showDocs = append(c.showDocs, *p) })
	return &protocol.ShowDocumentResult{Success: true}, nil
}
func (c *testClient) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	c.record(func() { c.progCreate++ })
	return nil
}
func (c *testClient) Telemetry(context.Context, protocol.LSPAny) error { return nil }
func (c *testClient) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	v, ok := p.Version.Get()
	c.record(func() {
		c.diags = append(c.diags, pubDiags{at: time.Now(), uri: p.URI, version: v, hasVer: ok, diags: p.Diagnostics})
	})
	return nil
}
func (c *testClient) Configuration(context.Context, *protocol.ConfigurationParams) ([]protocol.LSPAny, error) {
	return nil, nil
}
func (c *testClient) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, nil
}
func (c *testClient) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
	return &protocol.ApplyWorkspaceEditResult{}, nil
}
func (c *testClient) CodeLensRefresh(context.Context) error {
	c.record(func() { c.refreshes++ })
	return nil
}
func (c *testClient) FoldingRangeRefresh(context.Context) error   { return nil }
func (c *testClient) SemanticTokensRefresh(context.Context) error { return nil }
func (c *testClient) InlineValueRefresh(context.Context) error    { return nil }
func (c *testClient) InlayHintRefresh(context.Context) error {
	c.record(func() { c.inlayRefreshes++ })
	return nil
}
func (c *testClient) DiagnosticRefresh(context.Context) error { return nil }
func (c *testClient) TextDocumentContentRefresh(context.Context, *protocol.TextDocumentContentRefreshParams) error {
	return nil
}

func codeOf(d protocol.Diagnostic) string {
	if s, ok := d.Code.(protocol.String); ok {
		return string(s)
	}
	return ""
}

func messageOf(d protocol.Diagnostic) string {
	if s, ok := d.Message.(protocol.String); ok {
		return string(s)
	}
	return ""
}

func hasCode(ds []protocol.Diagnostic, code string) bool {
	for _, d := range ds {
		if codeOf(d) == code {
			return true
		}
	}
	return false
}
