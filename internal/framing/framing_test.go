package framing

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      string
		bodies  []string
		garbage int
		end     error
	}{
		{name: "two frames", in: "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", bodies: []string{"{}", "[1]"}, end: io.EOF},
		{name: "other headers, any case, bare newlines", in: "content-length: 2\nContent-Type: x\n\n{}", bodies: []string{"{}"}, end: io.EOF},
		{name: "a header without its length", in: "Content-Type: x\r\n\r\nContent-Length: 1\r\n\r\nx", bodies: []string{"x"}, garbage: 1, end: io.EOF},
		{name: "bytes before a header", in: "garbage Content-Length: 1\r\n\r\nx", bodies: []string{"x"}, garbage: 1, end: io.EOF},
		{name: "a line without a colon", in: "hello\r\n\r\nContent-Length: 1\r\n\r\ny", bodies: []string{"y"}, garbage: 1, end: io.EOF},
		{name: "a length over the limit", in: "Content-Length: 20\r\n\r\n" + strings.Repeat("z", 20) + "Content-Length: 1\r\n\r\nw", bodies: []string{"w"}, garbage: 1, end: io.EOF},
		{name: "a bad length", in: "Content-Length: -3\r\n\r\nContent-Length: 1\r\n\r\nv", bodies: []string{"v"}, garbage: 1, end: io.EOF},
		{name: "cut in the body", in: "Content-Length: 5\r\n\r\nab", end: io.ErrUnexpectedEOF},
		{name: "cut in the header", in: "Content-Length: 5\r\n", end: io.ErrUnexpectedEOF},
		{name: "an over-long line", in: strings.Repeat("q", 3*MaxHeaderLine) + "\r\n\r\nContent-Length: 1\r\n\r\nu", bodies: []string{"u"}, garbage: 1, end: io.EOF},
	} {
		garbage := 0
		r := NewReader(strings.NewReader(c.in), 10, func(error) { garbage++ })
		var bodies []string
		var err error
		for {
			var b []byte
			if b, err = r.Read(); err != nil {
				break
			}
			bodies = append(bodies, string(b))
		}
		if strings.Join(bodies, "|") != strings.Join(c.bodies, "|") || garbage != c.garbage || !errors.Is(err, c.end) {
			t.Errorf("%s: bodies %q, %d garbage, end %v; want %q, %d, %v", c.name, bodies, garbage, err, c.bodies, c.garbage, c.end)
		}
	}
	if got := string(Append([]byte("x"), []byte("{}"))); got != "xContent-Length: 2\r\n\r\n{}" {
		t.Errorf("Append: %q", got)
	}
}
