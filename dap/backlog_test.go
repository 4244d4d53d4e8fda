package dap

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// endlessRequests is a client that sends, after a first request, frames
// of padded requests without end, and counts the bytes read from it.
type endlessRequests struct {
	first []byte
	frame []byte
	buf   []byte
	read  atomic.Int64
	stop  <-chan struct{}
}

func (r *endlessRequests) Read(p []byte) (int, error) {
	select {
	case <-r.stop:
		return 0, io.EOF
	default:
	}
	if len(r.buf) == 0 {
		if r.first != nil {
			r.buf, r.first = r.first, nil
		} else {
			r.buf = r.frame
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.read.Add(int64(n))
	return n, nil
}

func dapFrame(body string) []byte {
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// While a request is being handled the requests after it are read ahead,
// but no more of them than a bound of bytes, whatever their number: the
// backlog's 1,024 requests of up to 256 MB each once let a client that
// kept writing during a long launch fill 256 GB.
func TestBacklogBoundedInBytes(t *testing.T) {
	const limit = 1 << 20
	pad := strings.Repeat("x", 64<<10)
	stop := make(chan struct{})
	in := &endlessRequests{
		first: dapFrame(`{"seq":1,"type":"request","command":"initialize","arguments":{}}`),
		frame: dapFrame(`{"seq":2,"type":"request","command":"threads","arguments":{"pad":"` + pad + `"}}`),
		stop:  stop,
	}
	held := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := Options{backlogBytes: limit, beforeRequest: func(rctx context.Context, command string) {
		if command == "initialize" {
			once.Do(func() { close(held) })
			<-rctx.Done() // held until the test ends
		}
	}}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, in, io.Discard, opts) }()
	<-held
	time.Sleep(300 * time.Millisecond)
	// The bound, the frame the reader holds and one being read.
	if got, most := in.read.Load(), int64(limit+3*len(in.frame)); got > most {
		t.Errorf("%d bytes read ahead while a request was held; want at most %d", got, most)
	}
	close(stop)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not end with its context")
	}
}
