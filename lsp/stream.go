package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame bounds the body of one message: a document of the language's
// 16 MB limit, JSON-escaped, fits; a header that claims more is garbage.
const maxFrame = 64 << 20

// maxHeaderLine bounds one header line.
const maxHeaderLine = 4096

// stream is the LSP base protocol (Content-Length framing) over a byte
// connection, made to survive what a broken or hostile client sends: a
// frame whose header is malformed, whose length is absurd or whose body is
// not a JSON-RPC message is reported through garbage and skipped, and the
// next frame is read. (The library's own framing ends the connection on
// the first bad frame, and allocates whatever length a header claims.)
// Only the end of the input, or a read error, ends the stream.
type stream struct {
	in      *bufio.Reader
	out     io.Writer
	closer  io.Closer
	garbage func(error)

	writeMu sync.Mutex
	buf     []byte
}

func newStream(in io.Reader, out io.Writer, closer io.Closer, garbage func(error)) *stream {
	return &stream{in: bufio.NewReaderSize(in, 64<<10), out: out, closer: closer, garbage: garbage}
}

var errBadHeader = errors.New("malformed message header")

// Read returns the next well-formed message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		n, err := s.readHeader()
		if err != nil {
			if errors.Is(err, errBadHeader) {
				s.garbage(err)
				continue
			}
			return nil, 0, err
		}
		if n > maxFrame {
			s.garbage(fmt.Errorf("message of %d bytes skipped (the limit is %d)", n, maxFrame))
			if _, err := io.CopyN(io.Discard, s.in, int64(n)); err != nil {
				return nil, 0, io.ErrUnexpectedEOF
			}
			continue
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(s.in, body); err != nil {
			return nil, 0, io.ErrUnexpectedEOF
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err != nil {
			s.garbage(fmt.Errorf("message skipped: %w: %.80q", err, body))
			continue
		}
		return msg, int64(n), nil
	}
}

// readHeader reads a header block and returns its Content-Length. A
// malformed block is consumed to its blank line (or to the next line that
// could start a header) and reported as errBadHeader.
//
// A Content-Length header that follows other bytes on its line starts a
// new block there: bytes a client wrote without a line end, or the rest of
// a frame whose length was wrong, run into the next header, and without
// this every frame after them would be lost (each body would run into the
// next header the same way).
func (s *stream) readHeader() (int, error) {
	length, sawLength, bad, lines := 0, false, false, 0
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && lines > 0 {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if i := lengthHeaderAt(line); i > 0 && strings.TrimSpace(line[:i]) != "" {
			s.garbage(fmt.Errorf("%d bytes before a header skipped: %.80q", i, line[:i]))
			line = line[i:]
			length, sawLength, bad, lines = 0, false, false, 0
		}
		lines++
		if line == "" {
			if lines == 1 {
				lines = 0 // a stray blank line between frames
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			bad = true
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 {
				bad = true
				continue
			}
			length, sawLength = n, true
		}
	}
	if bad || !sawLength {
		return 0, errBadHeader
	}
	return length, nil
}

// lengthHeaderAt returns where a Content-Length header (the name in any
// case, then a colon) starts in line, or -1.
func lengthHeaderAt(line string) int {
	const name = "content-length"
	for i := 0; i+len(name) <= len(line); i++ {
		match := true
		for j := 0; j < len(name) && match; j++ {
			c := line[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			match = c == name[j]
		}
		if match && strings.HasPrefix(strings.TrimLeft(line[i+len(name):], " \t"), ":") {
			return i
		}
	}
	return -1
}

// readLine reads one line without its line ending. An over-long line is
// consumed and its last maxHeaderLine bytes returned: it is not a valid
// header, but a header may have run into its end (see readHeader).
func (s *stream) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > 2*maxHeaderLine {
			b = append(b[:0], b[len(b)-maxHeaderLine:]...)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(b) > 0 && errors.Is(err, io.EOF) {
			return "", io.ErrUnexpectedEOF
		}
		return "", err
	}
	b = bytes.TrimRight(b, "\r\n")
	return string(b[max(0, len(b)-maxHeaderLine):]), nil
}

// Write frames msg.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	body := jsonrpc2.AppendMessage(s.buf[:0], msg)
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	if cap(body) <= 1<<20 {
		s.buf = body[:0] // keep a buffer of ordinary size for the next message
	} else {
		s.buf = nil
	}
	n, err := s.out.Write(frame)
	return int64(n), err
}

// Close closes the connection.
func (s *stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}
