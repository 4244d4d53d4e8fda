package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"weft/internal/framing"
)

// maxFrame bounds the body of one message: a document of the language's
// 16 MB limit, JSON-escaped, fits; a header that claims more is garbage.
const maxFrame = 64 << 20

// stream is the LSP base protocol (Content-Length framing, package
// framing) over a byte connection, made to survive what a broken or hostile
// client sends: a frame whose header is malformed or whose length is absurd
// is reported through garbage and skipped, and the next frame is read. Only
// the end of the input, or a read error, ends the stream.
//
// It owns JSON-RPC conformance (see "JSON-RPC" in the package doc): a body
// that is not a well-formed JSON-RPC 2.0 message is answered here, with
// -32700 (not JSON) or -32600 (not a valid message), and never reaches the
// library, which would drop it silently and leave a request waiting.
type stream struct {
	in      *framing.Reader
	out     io.Writer
	closer  io.Closer
	garbage func(error)

	writeMu sync.Mutex
	buf     []byte
	// quiet: the session is shutting down, and the server's own requests
	// and notifications are dropped (silence); only answers are written.
	quiet bool

	// readErr is the error that ended reading (see readError).
	readMu  sync.Mutex
	readErr error
}

// readError is the error that ended the input, but a clean end (io.EOF):
// Serve's error when the connection ended without saying why (the
// connection may close before it records its reader's error).
func (s *stream) readError() error {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if errors.Is(s.readErr, io.EOF) {
		return nil
	}
	return s.readErr
}

// silence drops every request and notification of the server written
// from now on: after shutdown the server says nothing unasked, though a
// goroutine started before it (a refresh, a status) sends on. Such a
// request is never answered; its caller waits for its context, which
// the session's end ends. It is dropped without an error, which the
// library would take for a broken connection.
func (s *stream) silence() {
	s.writeMu.Lock()
	s.quiet = true
	s.writeMu.Unlock()
}

func newStream(in io.Reader, out io.Writer, closer io.Closer, garbage func(error)) *stream {
	return &stream{in: framing.NewReader(in, maxFrame, garbage), out: out, closer: closer, garbage: garbage}
}

// Read returns the next well-formed message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, err := s.in.Read()
		if err != nil {
			s.readMu.Lock()
			if s.readErr == nil {
				s.readErr = err
			}
			s.readMu.Unlock()
			return nil, 0, err
		}
		if msg := s.validate(ctx, body); msg != nil {
			return msg, int64(len(body)), nil
		}
	}
}

// rejection is a malformed message's answer: the error and the id to
// answer (the zero ID: null, when the message has no valid one).
type rejection struct {
	id   jsonrpc2.ID
	code jsonrpc2.Code
	why  string
}

// validate returns body as a message if it is a well-formed JSON-RPC 2.0
// message; otherwise it answers it (or, for a malformed response, only
// logs it) and returns nil.
func (s *stream) validate(ctx context.Context, body []byte) jsonrpc2.Message {
	// The common case, a well-formed message, costs the library's scan
	// only (encoding/json is an order of magnitude slower on a large
	// didOpen: 0.39 s for 18 MB). The library takes an id null for a
	// notification; LSP does not.
	if v, err := jsonrpc2.ScanMessageView(body); err == nil && (v.IDRaw == nil || !isNull(v.IDRaw) || v.Kind == jsonrpc2.MessageViewResponseError) {
		if msg, err := v.Owned(); err == nil {
			return msg
		}
	}
	// Something is wrong: what, and which id to answer. One parse: an
	// object into its members, an array into its members, anything else
	// only checked.
	var fields map[string]json.RawMessage
	var err error
	switch trimmed := bytes.TrimLeft(body, " \t\r\n"); {
	case len(trimmed) > 0 && trimmed[0] == '{':
		err = json.Unmarshal(body, &fields)
	case len(trimmed) > 0 && trimmed[0] == '[':
		var members []json.RawMessage
		if err = json.Unmarshal(body, &members); err == nil {
			s.rejectBatch(ctx, body, members)
			return nil
		}
	case json.Valid(body):
		s.reject(ctx, body, rejection{code: jsonrpc2.InvalidRequest, why: "invalid request: a message is a JSON object"})
		return nil
	default:
		err = fmt.Errorf("not JSON")
	}
	if err != nil {
		why := "parse error: the body is not JSON"
		if s.in.Resync(body) {
			// The frame's length was wrong and its body ran into the
			// frames after it: they are read again.
			why = "parse error: the frame's length does not match its body"
		}
		s.reject(ctx, body, rejection{code: jsonrpc2.ParseError, why: why})
		return nil
	}
	m, r := checkMessage(fields)
	if r != nil {
		if m == kindResponse {
			s.garbage(fmt.Errorf("malformed response skipped (%s): %.80q", r.why, body))
			return nil
		}
		s.reject(ctx, body, *r)
		return nil
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		// What the library refuses (it should refuse nothing that passed
		// the checks) is answered all the same.
		id, _ := messageID(fields["id"])
		s.reject(ctx, body, rejection{id: id, code: jsonrpc2.InvalidRequest, why: "invalid request: " + err.Error()})
		return nil
	}
	return msg
}

type messageKind int

const (
	kindRequest messageKind = iota
	kindResponse
)

// checkMessage checks the members of a message object: "jsonrpc" exactly
// "2.0"; a request's "method" a string, its "id" (if any) a string or an
// integer (not null: LSP's ids are strings and integers), no "result" or
// "error" beside a method; a response's "id" valid (or null with an
// error) and exactly one of "result" and "error". Params are the
// dispatcher's to check (-32602). It says what the message claims to be,
// and why it is not well-formed (nil: it is).
func checkMessage(fields map[string]json.RawMessage) (messageKind, *rejection) {
	rawID, hasID := fields["id"]
	id, idOK := messageID(rawID)
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	rawMethod, hasMethod := fields["method"]
	kind := kindRequest
	if !hasMethod && (hasResult || hasError) {
		kind = kindResponse
	}
	reject := func(why string) (messageKind, *rejection) {
		return kind, &rejection{id: id, code: jsonrpc2.InvalidRequest, why: "invalid request: " + why}
	}
	if v := fields["jsonrpc"]; string(bytes.TrimSpace(v)) != `"2.0"` {
		if v == nil {
			return reject(`no "jsonrpc" member (it must be "2.0")`)
		}
		return reject(fmt.Sprintf(`"jsonrpc" is %.20s, not "2.0"`, v))
	}
	if hasID && !idOK && !(kind == kindResponse && hasError && isNull(rawID)) {
		return reject(fmt.Sprintf("the id %.20s is not a string or an integer", rawID))
	}
	switch {
	case kind == kindResponse:
		if !hasID {
			return reject("a response without an id")
		}
		if hasResult && hasError {
			return reject(`a response with both "result" and "error"`)
		}
		return kind, nil
	case !hasMethod:
		return reject(`neither a request (no "method") nor a response`)
	case hasResult || hasError:
		return reject(`a request with a "result" or an "error"`)
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil {
		return reject(fmt.Sprintf("the method %.20s is not a string", rawMethod))
	}
	return kind, nil
}

// messageID reads a message's id: a string or an integer (a number
// without a fraction or an exponent, within int64). ok is false for
// anything else, null included.
func messageID(raw json.RawMessage) (id jsonrpc2.ID, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return jsonrpc2.ID{}, false
	}
	if raw[0] == '"' {
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.NewStringID(str), true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	return jsonrpc2.NewNumberID(n), true
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// rejectBatch answers a batch. LSP has no batches, so the server does
// not run them: each request in it is answered -32600 under its own id
// (as separate messages, as every LSP message is), each malformed member
// -32600 with a null id, an empty batch -32600 once; its notifications
// and responses are dropped.
func (s *stream) rejectBatch(ctx context.Context, body []byte, members []json.RawMessage) {
	if len(members) == 0 {
		s.reject(ctx, body, rejection{code: jsonrpc2.InvalidRequest, why: "invalid request: an empty batch"})
		return
	}
	const why = "invalid request: batches are not supported (LSP does not use them); send each message in its own frame"
	for _, raw := range members {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil || fields == nil {
			s.reject(ctx, raw, rejection{code: jsonrpc2.InvalidRequest, why: "invalid request: a batch member that is not an object"})
			continue
		}
		kind, r := checkMessage(fields)
		switch {
		case r != nil && kind == kindRequest:
			s.reject(ctx, raw, *r)
		case kind == kindRequest && fields["id"] != nil:
			id, _ := messageID(fields["id"])
			s.reject(ctx, raw, rejection{id: id, code: jsonrpc2.InvalidRequest, why: why})
		default:
			s.garbage(fmt.Errorf("a notification or response in a batch skipped: %.80q", raw))
		}
	}
}

// reject answers a malformed message with r and logs it.
func (s *stream) reject(ctx context.Context, body []byte, r rejection) {
	s.garbage(fmt.Errorf("message skipped, answered %d (%s): %.80q", r.code, r.why, body))
	if _, err := s.Write(ctx, jsonrpc2.NewResponse(r.id, nil, jsonrpc2.NewError(r.code, r.why))); err != nil {
		s.garbage(fmt.Errorf("answering a malformed message: %w", err))
	}
}

// Write frames msg.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	body := jsonrpc2.AppendMessage(s.buf[:0], msg)
	if s.quiet {
		// The library's own message types are not exported: what the
		// body is says whether it is an answer.
		if v, err := jsonrpc2.ScanMessageView(body); err == nil && (v.Kind == jsonrpc2.MessageViewCall || v.Kind == jsonrpc2.MessageViewNotification) {
			s.buf = body[:0]
			return 0, nil
		}
	}
	framed := framing.Append(make([]byte, 0, len(body)+32), body)
	if cap(body) <= 1<<20 {
		s.buf = body[:0] // keep a buffer of ordinary size for the next message
	} else {
		s.buf = nil
	}
	n, err := s.out.Write(framed)
	return int64(n), err
}

// Close closes the connection.
func (s *stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}
