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
	// onSynthesis, if set, is told +1 when an SMT synthesis (a z3
	// process) starts and -1 when it ends (tests count them).
	onSynthesis func(delta int)
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
	// synth bounds the SMT syntheses (z3 processes) running at once over
	// all documents (see independence.go).
	synth *synthPool
	// methods are the methods a client may send (LSP's, client to server).
	methods map[string]bool
	// lensRefresh and hintRefresh send the refresh requests, one of
	// each kind at a time.
	lensRefresh, hintRefresh refresher
	// stream is the connection's framing: shutdown silences it.
	stream *stream
	// cancelRequest cancels the request with an id, if it still runs.
	cancelRequest func(jsonrpc2.ID)
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
	s.synth = newSynthPool(s.settings.maxConcurrent(), opts.onSynthesis)
	s.methods = clientMethods()
	st := newStream(in, out, closer, func(err error) { s.logf("skipped: %v", err) })
	s.stream = st
	s.conn = jsonrpc2.NewConn(st, jsonrpc2.WithCodec(codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	s.inner = protocol.ServerHandler(s, nil)
	// The canceller only records the contexts of the requests running;
	// $/cancelRequest itself is s.handle's, which never fails a
	// notification (the library ends the connection when a notification's
	// handler returns an error, as protocol.CancelHandler's did for a
	// malformed cancel).
	handler, cancelRequest := jsonrpc2.CancelHandler(s.handle)
	s.cancelRequest = cancelRequest
	s.conn.Go(ctx, handler)

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
		if err == nil {
			err = st.readError()
		}
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
// unknown method, params that do not decode, a malformed cancel): the
// library ends the connection when a notification's handler returns an
// error, so a failed notification is logged and returns none.
//
// The lifecycle: before initialize a request is answered -32002 and a
// notification dropped; shutdown is recorded here, on the reading
// goroutine, before anything after it is read, so that after it a
// request is answered -32600 and a notification (a didOpen, a didChange)
// starts nothing; exit ends the session at any time.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := strings.Clone(req.Method())
	isCall := req.IsCall()
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
	if method == protocol.MethodCancelRequest && !isCall {
		s.cancel(json.RawMessage(req.Params()))
		return nil, nil
	}
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	if initialized && method == protocol.MethodShutdown && isCall {
		s.shutdown = true // what follows sees it (this request still runs)
		s.stream.silence()
	}
	s.mu.Unlock()
	if isCall {
		// Release the reading goroutine; and the request is then never
		// recycled by the library while the canceller's context, derived
		// from it, lives.
		jsonrpc2.Async(ctx)
	}
	switch {
	case method == protocol.MethodExit:
	case !initialized && method != protocol.MethodInitialize:
		if isCall {
			return nil, jsonrpc2.NewError(-32002, "the server is not initialized yet")
		}
		return nil, nil
	case shutdown && isCall:
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down")
	case shutdown:
		s.logf("%s after shutdown ignored", method)
		return nil, nil
	case isCall && !s.methods[method]:
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+method)
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
	// The message parsed (the stream checked it) and the method is LSP's,
	// so a parse error of the dispatcher is about the params.
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
		msg := "invalid params: " + rpcErr.Message
		if len(req.Params()) == 0 {
			msg = "no params, and " + method + " needs them"
		}
		err = jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
	}
	return result, err
}

// clientMethods are the methods LSP lets a client send.
func clientMethods() map[string]bool {
	m := map[string]bool{}
	for _, info := range protocol.Methods {
		if info.Direction != protocol.DirectionServerToClient {
			m[info.Method] = true
		}
	}
	return m
}

// cancel handles $/cancelRequest: params {"id": string or integer}. A
// cancel of anything else (no params, an id null, a float, an object) is
// logged and ignored: it is a notification, so there is no one to answer,
// and it must not end the session.
func (s *Server) cancel(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.ID == nil {
		s.logf("$/cancelRequest ignored: its params are not {\"id\": …}: %.80q", params)
		return
	}
	id, ok := messageID(p.ID)
	if !ok {
		s.logf("$/cancelRequest ignored: the id %.40s is not a string or an integer", p.ID)
		return
	}
	s.cancelRequest(id)
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
	s.synth.setLimit(s.settings.maxConcurrent())
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
		s.synth.setLimit(next.maxConcurrent())
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
