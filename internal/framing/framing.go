// Package framing is the base protocol of LSP and DAP: messages framed by a
// Content-Length header, read so as to survive what a broken or hostile
// peer sends. A frame whose header is malformed or whose length is over
// the reader's limit is reported through the garbage callback and
// skipped, and the next frame is read; only the end of the input, or a
// read error, ends the reading. (The protocol libraries' own framings end
// the connection on the first bad frame, or allocate whatever length a
// header claims.) It knows nothing of what the bodies hold.
package framing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxHeaderLine bounds one header line.
const MaxHeaderLine = 4096

// ErrBadHeader is what the garbage callback gets for a malformed header.
var ErrBadHeader = errors.New("malformed message header")

// Reader reads frames.
type Reader struct {
	in      *bufio.Reader
	max     int
	garbage func(error)
}

// NewReader reads frames of at most maxBody bytes from in, reporting what
// it skips to garbage.
func NewReader(in io.Reader, maxBody int, garbage func(error)) *Reader {
	return &Reader{in: bufio.NewReaderSize(in, 64<<10), max: maxBody, garbage: garbage}
}

// Read returns the body of the next well-formed frame. At the end of the
// input it returns io.EOF, or io.ErrUnexpectedEOF inside a frame.
func (r *Reader) Read() ([]byte, error) {
	for {
		n, err := r.readHeader()
		if err != nil {
			if errors.Is(err, ErrBadHeader) {
				r.garbage(err)
				continue
			}
			return nil, err
		}
		if n > r.max {
			r.garbage(fmt.Errorf("message of %d bytes skipped (the limit is %d)", n, r.max))
			if _, err := io.CopyN(io.Discard, r.in, int64(n)); err != nil {
				return nil, io.ErrUnexpectedEOF
			}
			continue
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r.in, body); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		return body, nil
	}
}

// readHeader reads a header block and returns its Content-Length. A
// malformed block is consumed to its blank line (or to the next line that
// could start a header) and reported as ErrBadHeader.
//
// A Content-Length header that follows other bytes on its line starts a
// new block there: bytes a client wrote without a line end, or the rest of
// a frame whose length was wrong, run into the next header, and without
// this every frame after them would be lost (each body would run into the
// next header the same way).
func (r *Reader) readHeader() (int, error) {
	length, sawLength, bad, lines := 0, false, false, 0
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && lines > 0 {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if i := LengthHeaderAt(line); i > 0 && strings.TrimSpace(line[:i]) != "" {
			r.garbage(fmt.Errorf("%d bytes before a header skipped: %.80q", i, line[:i]))
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
		return 0, ErrBadHeader
	}
	return length, nil
}

// LengthHeaderAt returns where a Content-Length header (the name in any
// case, then a colon) starts in line, or -1.
func LengthHeaderAt(line string) int {
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
// consumed and its last MaxHeaderLine bytes returned: it is not a valid
// header, but a header may have run into its end (see readHeader).
func (r *Reader) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > 2*MaxHeaderLine {
			b = append(b[:0], b[len(b)-MaxHeaderLine:]...)
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
	return string(b[max(0, len(b)-MaxHeaderLine):]), nil
}

// Append appends body, framed, to dst.
func Append(dst, body []byte) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}
