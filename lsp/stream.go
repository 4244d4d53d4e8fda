package lsp

import (
	"context"
	"fmt"
	"io"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"weft/internal/framing"
)

// maxFrame bounds the body of one message: a document of the language's
// 16 MB limit, JSON-escaped, fits; a header that claims more is garbage.
const maxFrame = 64 << 20

// stream is the LSP base protocol (Content-Length framing, package
// framing) over a byte connection, made to survive what a broken or hostile
// client sends: a frame whose header is malformed, whose length is absurd
// or whose body is not a JSON-RPC message is reported through garbage and
// skipped, and the next frame is read. Only the end of the input, or a
// read error, ends the stream.
type stream struct {
	in      *framing.Reader
	out     io.Writer
	closer  io.Closer
	garbage func(error)

	writeMu sync.Mutex
	buf     []byte
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
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.garbage(fmt.Errorf("message skipped: %w: %.80q", err, body))
			continue
		}
		return msg, int64(len(body)), nil
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
