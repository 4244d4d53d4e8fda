package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Options configure a server.
type Options struct {
	// Log receives the server's own log (panics, garbage on the wire);
	// nil discards it. The client also gets panics as window/logMessage.
	Log io.Writer
	// Version is reported to the client in serverInfo.
	Version string

	// beforeRequest, if set, runs before each request is handled (tests
	// use it to hold a request until it is cancelled).
	beforeRequest func(ctx context.Context, method string)
}

// Server is one language server session over one connection.
type Server struct {
	protocol.UnimplementedServer

	opts   Options
	conn   jsonrpc2.Conn
	client protocol.Client
	inner  jsonrpc2.Handler
	ctx    context.Context // the session's; cancelled when it ends

	logMu sync.Mutex

	mu           sync.Mutex
	settings     Settings
	docs         map[uri.URI]*document
	initialized  bool
	shutdown     bool
	exited       chan struct{}
	caps         clientCaps
	progressDocs map[string]*document // work-done progress token → document

	limiter *limiter
	// tokenIndex maps query.TokenType to the legend's index when the
	// client knows only the standard token types (nil: Weft's own legend).
	tokenIndex []uint32
	nextID     atomic.Int64 // bug ids and progress tokens
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	workDoneProgress bool
	codeLensRefresh  bool
	relatedInfo      bool
	inlayHintRefresh bool
	showDocument     bool
	weft             weftCaps // experimental: what Weft's own clients opt in to
}

func readClientCaps(caps *protocol.ClientCapabilities) clientCaps {
	isTrue := func(b *bool) bool { return b != nil && *b }
	var cc clientCaps
	if w := caps.Window; w != nil {
		cc.workDoneProgress = isTrue(w.WorkDoneProgress)
	}
	if ws := caps.Workspace; ws != nil && ws.CodeLens != nil {
		cc.codeLensRefresh = isTrue(ws.CodeLens.RefreshSupport)
	}
	if ws := caps.Workspace; ws != nil && ws.InlayHint != nil {
		cc.inlayHintRefresh = isTrue(ws.InlayHint.RefreshSupport)
	}
	if w := caps.Window; w != nil && w.ShowDocument != nil {
		cc.showDocument = w.ShowDocument.Support
	}
	cc.weft = readWeftCaps(caps.Experimental)
	if td := caps.TextDocument; td != nil && td.PublishDiagnostics != nil {
		cc.relatedInfo = isTrue(td.PublishDiagnostics.RelatedInformation)
	}
	return cc
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// before shutdown (the protocol says the process should then exit 1).
var ErrExitWithoutShutdown = errors.New("exit before shutdown")

// Serve runs a language server over in and out until the client sends
// exit, in ends, or ctx is cancelled. closer, if not nil, is closed at the
// end.
func Serve(ctx context.Context, in io.Reader, out io.Writer, closer io.Closer, opts Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{
		opts:         opts,
		ctx:          ctx,
		settings:     DefaultSettings(),
		docs:         map[uri.URI]*document{},
		exited:       make(chan struct{}),
		progressDocs: map[string]*document{},
	}
	s.limiter = newLimiter(s.settings.maxConcurrent())
	st := newStream(in, out, closer, func(err error) { s.logf("skipped: %v", err) })
	s.conn = jsonrpc2.NewConn(st, jsonrpc2.WithCodec(codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	s.inner = protocol.ServerHandler(s, nil)
	s.conn.Go(ctx, protocol.CancelHandler(s.handle))

	var err error
	select {
	case <-s.exited:
		s.mu.Lock()
		if !s.shutdown {
			err = ErrExitWithoutShutdown
		}
		s.mu.Unlock()
	case <-s.conn.Done():
		err = s.conn.Err()
	case <-ctx.Done():
	}
	s.closeAll()
	cancel()
	go s.conn.Close() // it waits for handlers to drain; do not hold the caller
	return err
}

// codec marshals payloads with the protocol package's union-aware codec
// (the library's own is not exported).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if m, ok := v.(jsonrpc2.RawMessage); ok {
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// handle is every message's way in. Notifications run in wire order on
// the reading goroutine (they only record text and wake workers, so they
// are quick); requests are released to run concurrently, so that a slow
// one never holds up the edits behind it and $/cancelRequest reaches it.
// A panic in a handler is recovered, logged and answered with an error:
// it never ends the session. Nor does a notification that fails (an
// unknown method, params that do not decode): the library ends the
// connection when a notification's handler returns an error, so a failed
// notification is logged and returns none.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := strings.Clone(req.Method())
	isCall := req.IsCall()
	if isCall {
		jsonrpc2.Async(ctx)
	}
	defer func() {
		if r := recover(); r != nil {
			s.logf("panic in %s: %v\n%s", method, r, debug.Stack())
			s.clientLog(protocol.MessageTypeError, fmt.Sprintf("weft: internal error in %s: %v (the server goes on; please report it)", method, r))
			result, err = nil, nil
			if isCall {
				err = jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("internal error in %s: %v", method, r))
			}
		}
	}()
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	switch {
	case method == protocol.MethodExit:
	case !initialized && method != protocol.MethodInitialize:
		if isCall {
			return nil, jsonrpc2.NewError(-32002, "the server is not initialized yet")
		}
		return nil, nil
	case shutdown && isCall:
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down")
	}
	if isCall && s.opts.beforeRequest != nil {
		s.opts.beforeRequest(ctx, method)
	}
	result, err = s.inner(ctx, req)
	if !isCall {
		if err != nil {
			s.logf("notification %s skipped: %v", method, err)
		}
		return nil, nil
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, protocol.ErrRequestCancelled
	}
	// The message parsed (the stream checked it), so a parse error of the
	// dispatcher is about the params. (Absent params fail to decode even
	// for a method it does not know, before it can say so.)
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
		msg := "invalid params: " + rpcErr.Message
		if len(req.Params()) == 0 {
			msg = "no params, and " + method + " needs them (or is not a method weft knows)"
		}
		err = jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
	}
	return result, err
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, "weft lsp: "+format+"\n", args...)
}

func (s *Server) clientLog(t protocol.MessageType, msg string) {
	_ = s.client.LogMessage(s.ctx, &protocol.LogMessageParams{Type: t, Message: msg})
}

// Initialize answers the client's capabilities with the server's.
func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize sent twice")
	}
	s.caps = readClientCaps(&params.Capabilities)
	if len(params.InitializationOptions) > 0 {
		next, err := s.settings.merge(params.InitializationOptions)
		if err != nil {
			go s.clientLog(protocol.MessageTypeWarning, "weft: "+err.Error()+"; using the defaults")
		} else {
			s.settings = next
		}
	}
	s.limiter.setLimit(s.settings.maxConcurrent())
	s.initialized = true
	legend := semanticLegend()
	if !knowsWeftTokens(&params.Capabilities) {
		legend, s.tokenIndex = standardLegend()
	}
	return &protocol.InitializeResult{
		Capabilities: serverCapabilities(legend),
		ServerInfo:   protocol.ServerInfo{Name: "weft", Version: protocol.NewOptional(s.opts.Version)},
	}, nil
}

// Commands are the commands of workspace/executeCommand.
var Commands = []string{cmdTrace, cmdReplay, cmdRunOptimal, cmdStop}

const (
	cmdTrace      = "weft.trace"
	cmdReplay     = "weft.replay"
	cmdRunOptimal = "weft.runOptimal"
	cmdStop       = "weft.stop"
	cmdShowStatus = "weft.showStatus" // the status lens: handled by the client (it opens its output)
)

// knowsWeftTokens says whether the client declared Weft's own semantic
// token types (the VS Code extension does, with their supertypes).
func knowsWeftTokens(caps *protocol.ClientCapabilities) bool {
	if caps.TextDocument == nil {
		return false
	}
	return slices.Contains(caps.TextDocument.SemanticTokens.TokenTypes, "sharedVariable")
}

func serverCapabilities(legend protocol.SemanticTokensLegend) protocol.ServerCapabilities {
	t := true
	change := protocol.TextDocumentSyncKindIncremental
	return protocol.ServerCapabilities{
		PositionEncoding: protocol.PositionEncodingKindUTF16,
		TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &t, Change: &change},
		HoverProvider:    protocol.Boolean(true),
		CodeLensProvider: &protocol.CodeLensOptions{},
		// The code action "Show counterexample" on a bug's diagnostic
		// (showreplay.go), for clients without code lenses.
		CodeActionProvider: protocol.Boolean(true),
		ExecuteCommandProvider: protocol.ExecuteCommandOptions{
			Commands: Commands,
		},
		DocumentFormattingProvider: protocol.Boolean(true),
		DefinitionProvider:         protocol.Boolean(true),
		ReferencesProvider:         protocol.Boolean(true),
		DocumentHighlightProvider:  protocol.Boolean(true),
		DocumentSymbolProvider:     protocol.Boolean(true),
		RenameProvider:             &protocol.RenameOptions{PrepareProvider: &t},
		FoldingRangeProvider:       protocol.Boolean(true),
		CompletionProvider:         &protocol.CompletionOptions{TriggerCharacters: []string{"(", " "}},
		SignatureHelpProvider:      &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ","}},
		InlayHintProvider:          protocol.Boolean(true),
		SemanticTokensProvider:     &protocol.SemanticTokensOptions{Legend: legend, Full: protocol.Boolean(true)},
	}
}

// Initialized is the client's acknowledgement; nothing to do.
func (s *Server) Initialized(context.Context, *protocol.InitializedParams) error { return nil }

// Shutdown stops every check; the session then waits for exit.
func (s *Server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.closeAll()
	return nil
}

// Exit ends the session.
func (s *Server) Exit(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
	default:
		close(s.exited)
	}
	return nil
}

// SetTrace is accepted and ignored (the server logs to stderr).
func (s *Server) SetTrace(context.Context, *protocol.SetTraceParams) error { return nil }

// DidChangeConfiguration applies new settings to the checks that start
// after it.
func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	s.mu.Lock()
	next, err := s.settings.merge(params.Settings)
	changed := err == nil && !reflect.DeepEqual(next, s.settings)
	var docs []*document
	if err == nil {
		s.settings = next
		s.limiter.setLimit(next.maxConcurrent())
	}
	if changed {
		for _, d := range s.docs {
			docs = append(docs, d)
		}
	}
	s.mu.Unlock()
	if err != nil {
		s.clientLog(protocol.MessageTypeWarning, "weft: "+err.Error()+"; the previous settings stay")
	}
	// What was checked with the old settings is checked again with the
	// new ones (another mode, other conditions, other bug kinds).
	for _, d := range docs {
		d.recheck()
	}
	return nil
}

func (s *Server) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// closeAll stops the work of every document.
func (s *Server) closeAll() {
	s.mu.Lock()
	docs := make([]*document, 0, len(s.docs))
	for _, d := range s.docs {
		docs = append(docs, d)
	}
	s.docs = map[uri.URI]*document{}
	s.mu.Unlock()
	for _, d := range docs {
		d.close()
	}
}

func (s *Server) doc(u uri.URI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[u]
}

// errNoDocument answers a request about a document that is not open.
func errNoDocument(u uri.URI) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s is not open", u))
}

// rawJSON marshals v for an LSPAny field.
func rawJSON(v any) protocol.LSPAny {
	b, err := json.Marshal(v)
	if err != nil {
		return protocol.LSPAny("null")
	}
	return protocol.LSPAny(b)
}
