package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	godap "github.com/google/go-dap"

	"weft/internal/framing"
	"weft/replay"
)

// maxMessage bounds one message: an inline trace of 5,000 steps with
// every thread's locals at each can run to tens of megabytes (go-dap's
// own framing stops at 4 MB).
const maxMessage = 256 << 20

// Options configure a session.
type Options struct {
	Log    io.Writer      // the session's log (nil: none); weft dap uses stderr
	Replay replay.Options // the bounds of a document built from a report

	panicOn string // tests: the command whose handler panics
	// beforeRequest, if set, runs before each request is dispatched, in
	// its context (tests hold a request with it).
	beforeRequest func(ctx context.Context, command string)
	// backlogBytes bounds the bytes of the requests read ahead (0:
	// maxBacklogBytes; tests make it small).
	backlogBytes int
}

// maxBacklog and maxBacklogBytes bound the requests read ahead while
// one is being handled: past either the reading waits (the client's
// writes block, not our memory). The count alone let 1,024 messages of
// up to maxMessage each be held.
const (
	maxBacklog      = 1024
	maxBacklogBytes = 64 << 20
)

// Serve runs one debug session: it reads requests from in and writes
// responses and events to out until the client disconnects (nil), the
// input ends (nil at a frame boundary, once every request read is
// answered) or ctx ends (ctx's error).
//
// Requests are handled one at a time, in order, each in its own context;
// meanwhile the input is still read, so that a disconnect, a terminate or
// a cancel of the request being handled cancels it (a launch that
// replays a long trace takes seconds): it then answers at once, and the
// requests after it follow.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	s := newSession(ctx, out, opts)
	rd := framing.NewReader(in, maxMessage, func(err error) {
		s.logf("skipped: %v", err)
	})
	type read struct {
		body []byte
		err  error
	}
	reads := make(chan read)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			body, err := rd.Read()
			select {
			case reads <- read{body, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// running is the request being handled: it reports on done whether
	// the session is over.
	type running struct {
		done   chan bool
		cancel context.CancelFunc
		seq    int
	}
	start := func(body []byte) *running {
		rctx, cancel := context.WithCancel(ctx)
		r := &running{done: make(chan bool, 1), cancel: cancel, seq: seqOf(body)}
		go func() { r.done <- s.handle(rctx, body) }()
		return r
	}
	backlogLimit := opts.backlogBytes
	if backlogLimit <= 0 {
		backlogLimit = maxBacklogBytes
	}
	var (
		backlog      [][]byte
		backlogBytes int // of backlog's bodies
		cur          *running
		readErr      error   // the end of the input (io.EOF) or a read error
		input        = reads // nil once the input ended
	)
	for {
		if cur == nil && len(backlog) > 0 {
			cur = start(backlog[0])
			backlogBytes -= len(backlog[0])
			backlog[0] = nil
			backlog = backlog[1:]
			// What interrupts it may have been read already (while the
			// request before it ran).
			for _, b := range backlog {
				if interrupts(b, cur.seq) {
					cur.cancel()
				}
			}
		}
		if cur == nil && input == nil {
			if errors.Is(readErr, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading the client's messages: %w", readErr)
		}
		var done chan bool
		if cur != nil {
			done = cur.done
		}
		next := input
		if len(backlog) >= maxBacklog || backlogBytes >= backlogLimit {
			next = nil // the client waits
		}
		select {
		case <-ctx.Done():
			if cur != nil {
				cur.cancel()
				<-cur.done
			}
			return ctx.Err()
		case over := <-done:
			cur.cancel()
			cur = nil
			if over {
				return s.writeErr
			}
			if s.writeErr != nil {
				return fmt.Errorf("writing to the client: %w", s.writeErr)
			}
		case r := <-next:
			if r.err != nil {
				readErr, input = r.err, nil
				continue
			}
			if cur != nil && interrupts(r.body, cur.seq) {
				cur.cancel()
			}
			backlog = append(backlog, r.body)
			backlogBytes += len(r.body)
		}
	}
}

// seqOf is a message's seq (0 when it has none).
func seqOf(body []byte) int {
	var m struct {
		Seq int `json:"seq"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Seq
}

// interrupts says whether a message read while request seq is being
// handled cancels it: a disconnect or a terminate (the client is done
// with the session), or a cancel of that request.
func interrupts(body []byte, seq int) bool {
	var m struct {
		Type      string `json:"type"`
		Command   string `json:"command"`
		Arguments struct {
			RequestID *int `json:"requestId"`
		} `json:"arguments"`
	}
	if json.Unmarshal(body, &m) != nil || m.Type != "request" {
		return false
	}
	switch m.Command {
	case "disconnect", "terminate":
		return true
	case "cancel":
		return m.Arguments.RequestID != nil && *m.Arguments.RequestID == seq
	}
	return false
}

// envelope is what every request shares; the arguments are decoded per
// command.
type envelope struct {
	Seq       int             `json:"seq"`
	Type      string          `json:"type"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// response is a response with any body (go-dap's body types, or the
// custom requests').
type response struct {
	godap.Response
	Body any `json:"body,omitempty"`
}

// event is an event with any body.
type event struct {
	godap.Event
	Body any `json:"body,omitempty"`
}

// requestError is a request's failure: its message, and whether the
// client should show it to the user (launch errors) or only log it.
type requestError struct {
	msg  string
	user bool
}

func (e *requestError) Error() string { return e.msg }

// userErrorf is a failure to show the user.
func userErrorf(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...), user: true}
}

// errorf is a failure the client logs.
func errorf(format string, args ...any) error {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

// handle answers one message and sends the events it caused, in ctx
// (the request's: cancelled when the client cancels it). It reports
// whether the session is over.
func (s *session) handle(ctx context.Context, body []byte) (done bool) {
	s.ctx = ctx
	var req envelope
	if err := json.Unmarshal(body, &req); err != nil {
		s.logf("skipped: not a DAP message: %v: %.80q", err, body)
		s.sendError(&envelope{}, errorf("not a Debug Adapter Protocol message: %v", err))
		return false
	}
	switch {
	case req.Type == "response" || req.Type == "event":
		s.logf("ignored a %s from the client (weft dap sends no requests)", req.Type)
		return false
	case req.Type != "request":
		s.sendError(&req, errorf("a message of type %q: want a request", req.Type))
		return false
	case req.Command == "":
		s.sendError(&req, errorf("a request without a command"))
		return false
	}
	body2, done, err := s.dispatchSafely(&req)
	if err != nil {
		s.sendError(&req, err)
	} else {
		s.send(&response{Response: godap.Response{
			ProtocolMessage: godap.ProtocolMessage{Type: "response"},
			RequestSeq:      req.Seq, Success: true, Command: req.Command,
		}, Body: body2})
	}
	for _, ev := range s.pending {
		s.send(ev)
	}
	s.pending = s.pending[:0]
	return done
}

// dispatchSafely runs the request's handler, turning a panic into an
// error response.
func (s *session) dispatchSafely(req *envelope) (body any, done bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("internal error in %s: %v\n%s", req.Command, r, debug.Stack())
			s.pending = s.pending[:0]
			body, done, err = nil, false, userErrorf("internal error of weft dap in %s: %v (please report it)", req.Command, r)
		}
	}()
	if s.panicOn != "" && req.Command == s.panicOn {
		panic("a test asked for it")
	}
	if s.beforeRequest != nil {
		s.beforeRequest(s.ctx, req.Command)
	}
	return s.dispatch(req)
}

func (s *session) sendError(req *envelope, err error) {
	msg, user := err.Error(), false
	var re *requestError
	if errors.As(err, &re) {
		user = re.user
	}
	s.send(&godap.ErrorResponse{
		Response: godap.Response{
			ProtocolMessage: godap.ProtocolMessage{Type: "response"},
			RequestSeq:      req.Seq, Success: false, Command: req.Command, Message: msg,
		},
		Body: godap.ErrorResponseBody{Error: &godap.ErrorMessage{Id: 1, Format: msg, ShowUser: user}},
	})
}

// send numbers a message and writes it. After a write error nothing more
// is written (Serve ends).
func (s *session) send(m godap.Message) {
	if s.writeErr != nil {
		return
	}
	s.seq++
	switch m := m.(type) {
	case godap.ResponseMessage:
		m.GetResponse().Seq = s.seq
	case godap.EventMessage:
		m.GetEvent().Seq = s.seq
	}
	s.writeErr = godap.WriteProtocolMessage(s.out, m)
}

// emit queues an event, sent after the current response.
func (s *session) emit(name string, body any) {
	s.pending = append(s.pending, &event{Event: godap.Event{ProtocolMessage: godap.ProtocolMessage{Type: "event"}, Event: name}, Body: body})
}

func (s *session) logf(format string, args ...any) {
	if s.log != nil {
		fmt.Fprintf(s.log, "weft dap: "+format+"\n", args...)
	}
}

// decode reads a request's arguments into v (absent arguments leave v as
// it is).
func decode(req *envelope, v any) error {
	if len(req.Arguments) == 0 || string(req.Arguments) == "null" {
		return nil
	}
	if err := json.Unmarshal(req.Arguments, v); err != nil {
		return errorf("bad arguments for %s: %v", req.Command, err)
	}
	return nil
}
