// Package framing is the base protocol of LSP and DAP: messages framed by a
// Content-Length header, read so as to survive what a broken or hostile
// peer sends. A frame whose header is malformed or whose length is over
// the reader's limit is reported through the garbage callback and
// skipped, and the next frame is read; only the end of the input, or a
// read error, ends the reading. (The protocol libraries' own framings end
// the connection on the first bad frame, or allocate whatever length a
// header claims.) It knows nothing of what the bodies hold.
//
// A length that lies must not swallow the frames after it: skipping an
// over-long frame stops early at a line that starts with a Content-Length
// header (no JSON body has one: a raw line break occurs in JSON only
// between tokens, and no token starts with a letter C), and Resync reads
// again, from the first header in it, a body its caller found not to be a
// message.
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
	src     io.Reader     // the input
	pending *bytes.Reader // bytes given back by Resync, read before src (nil: none)
	in      *bufio.Reader // over pending, then src
	max     int
	garbage func(error)
}

const bufSize = 64 << 10

// NewReader reads frames of at most maxBody bytes from in, reporting what
// it skips to garbage.
func NewReader(in io.Reader, maxBody int, garbage func(error)) *Reader {
	return &Reader{src: in, in: bufio.NewReaderSize(in, bufSize), max: maxBody, garbage: garbage}
}

// Resync is for a body the caller could not read as a message: if a
// Content-Length header is in it, the frame's length was wrong and its
// body ran into the frames after it, so the bytes from that header on are
// read again (reported through garbage). It says whether it found one.
func (r *Reader) Resync(body []byte) bool {
	at := -1
	for i := 0; i < len(body) && at < 0; i++ {
		if (body[i] == 'c' || body[i] == 'C') && startsHeader(body[i:]) {
			at = i
		}
	}
	if at < 0 {
		return false
	}
	r.garbage(fmt.Errorf("a frame ran into the next header: %d bytes skipped, the rest read again", at))
	r.unread(body[at:])
	return true
}

// unread puts b back in front of what is still to be read.
func (r *Reader) unread(b []byte) {
	buffered, _ := r.in.Peek(r.in.Buffered())
	all := append(append([]byte(nil), b...), buffered...)
	if r.pending != nil {
		rest, _ := io.ReadAll(r.pending)
		all = append(all, rest...)
	}
	r.pending = bytes.NewReader(all)
	r.in = bufio.NewReaderSize(io.MultiReader(r.pending, r.src), bufSize)
}

// startsHeader says whether b starts with a Content-Length header name
// (any case) and its colon.
// It allocates nothing and reads only the bytes it matches: Resync calls
// it at every c of a body up to the frame limit.
func startsHeader(b []byte) bool {
	const name = "content-length"
	if len(b) < len(name)+1 {
		return false
	}
	for j := range len(name) {
		// A letter in either case; '-' itself (a byte |0x20 is a
		// lower-case letter only if it is a letter).
		if c := b[j]; c != name[j] && (name[j] == '-' || c|0x20 != name[j]) {
			return false
		}
	}
	i := len(name)
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i < len(b) && b[i] == ':'
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
			if err := r.skip(n); err != nil {
				return nil, err
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

// skip discards the n bytes of an over-long body, or fewer: it stops at a
// line that starts with a Content-Length header, which is the next frame
// (a huge length that lies must not swallow the session).
func (r *Reader) skip(n int) error {
	const name = "content-length:"
	lineStart := true // the body starts after the header's blank line
	for n > 0 {
		if lineStart && n > len(name) {
			if p, _ := r.in.Peek(len(name)); startsHeader(p) {
				r.garbage(fmt.Errorf("a header inside the skipped message: reading from there, %d bytes short of its length", n))
				return nil
			}
		}
		if r.in.Buffered() == 0 {
			if _, err := r.in.Peek(1); err != nil {
				return io.ErrUnexpectedEOF
			}
		}
		b, _ := r.in.Peek(min(n, r.in.Buffered()))
		k := len(b)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			k = i + 1
		}
		lineStart = b[k-1] == '\n'
		_, _ = r.in.Discard(k)
		n -= k
	}
	return nil
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
