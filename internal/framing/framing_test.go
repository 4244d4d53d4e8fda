package framing

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
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
		{name: "a huge length, then a frame", in: "Content-Length: 1000000000\r\n\r\nContent-Length: 1\r\n\r\nw", bodies: []string{"w"}, garbage: 2, end: io.EOF},
		{name: "a length over the limit, a frame on the body's next line", in: "Content-Length: 99\r\n\r\n" + strings.Repeat("z", 20) + "\ncontent-length: 1\r\n\r\nw", bodies: []string{"w"}, garbage: 2, end: io.EOF},
		{name: "a header inside an over-long line is body", in: "Content-Length: 37\r\n\r\n" + strings.Repeat("z", 15) + "Content-Length: 1\r\n\r\nw" + "Content-Length: 1\r\n\r\nv", bodies: []string{"v"}, garbage: 1, end: io.EOF},
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

// Resync reads again, from the first header in it, a body that ran into
// the frames after it; a body without one is left skipped.
func TestResync(t *testing.T) {
	for _, c := range []struct {
		name, in string
		bodies   []string // after the first, bad one
		found    bool
	}{
		{name: "a length too long by a frame and a bit", in: "Content-Length: 30\r\n\r\nContent-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", bodies: []string{"{}", "[1]"}, found: true},
		{name: "a header after a line break", in: "Content-Length: 20\r\n\r\nab\ncontent-Length: 1\r\n\r\nx", bodies: []string{"x"}, found: true},
		{name: "no header", in: "Content-Length: 4\r\n\r\n{{{{Content-Length: 1\r\n\r\ny", bodies: []string{"y"}},
		{name: "a header inside a line", in: "Content-Length: 22\r\n\r\nab Content-Length: 1\r\n\r\nxContent-Length: 1\r\n\r\ny", bodies: []string{"x", "y"}, found: true},
	} {
		r := NewReader(strings.NewReader(c.in), 100, func(error) {})
		first, err := r.Read()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := r.Resync(first); got != c.found {
			t.Errorf("%s: Resync %v, want %v", c.name, got, c.found)
		}
		if c.found && r.Resync([]byte("Content-Length")) {
			t.Errorf("%s: Resync of a body too short to hold a header", c.name)
		}
		var bodies []string
		for {
			b, err := r.Read()
			if err != nil {
				break
			}
			bodies = append(bodies, string(b))
		}
		if strings.Join(bodies, "|") != strings.Join(c.bodies, "|") {
			t.Errorf("%s: bodies %q, want %q", c.name, bodies, c.bodies)
		}
	}
}

// Resync of a body of the frame limit costs what reading it does, whatever
// it holds (a c at every byte, or a header name without its colon).
func TestResyncLinear(t *testing.T) {
	const size = 32 << 20
	for _, fill := range []string{"c", "Content-Length", "content-length \t "} {
		body := []byte(strings.Repeat(fill, size/len(fill)))
		r := NewReader(strings.NewReader(""), size, func(error) {})
		start := time.Now()
		if r.Resync(body) {
			t.Errorf("Resync found a header in %q…", fill)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Resync of %d bytes of %q took %v", size, fill, d)
		}
	}
	for _, c := range []struct {
		in   string
		want bool
	}{{"Content-Length:", true}, {"cONTENT-lENGTH \t:", true}, {"Content\rLength:", false}, {"Content-Length", false}, {"Content-Lengthx:", false}} {
		if got := startsHeader([]byte(c.in)); got != c.want {
			t.Errorf("startsHeader(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
