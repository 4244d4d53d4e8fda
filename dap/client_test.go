package dap

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"weft/internal/framing"
	"weft/internal/testbin"
)

// message is any message the adapter sends.
type message struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"`
	Event      string          `json:"event"`
	Command    string          `json:"command"`
	RequestSeq int             `json:"request_seq"`
	Success    bool            `json:"success"`
	Message    string          `json:"message"`
	Body       json.RawMessage `json:"body"`
}

// client drives a debug adapter: in-process (Serve over pipes) or a
// `weft dap` subprocess.
type client struct {
	t       *testing.T
	in      io.WriteCloser
	msgs    chan message
	readErr chan error
	seq     int
	lastIn  int // the seq of the last message received
	events  []message
	done    chan error // Serve's (or the process's) end
}

// timeout bounds every wait for the adapter.
const timeout = 20 * time.Second

// startInProcess runs Serve on pipes.
func startInProcess(t *testing.T) *client {
	t.Helper()
	return startWith(t, Options{Log: testLog{t}})
}

func startWith(t *testing.T, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := newClient(t, inW, outR)
	go func() {
		err := Serve(ctx, inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return c
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Logf("%s", b)
	return len(b), nil
}

// weft is built once for the tests that run the adapter as a subprocess.
var weft testbin.Binary

func buildWeft(t testing.TB) string { return weft.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	weft.Remove()
	os.Exit(code)
}

// startProcess runs `weft dap --stdio`.
func startProcess(t *testing.T) *client {
	t.Helper()
	cmd := exec.Command(buildWeft(t), "dap", "--stdio")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = testLog{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, in, out)
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(exited)
		c.done <- err
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-exited:
		case <-time.After(timeout):
			t.Errorf("weft dap did not end at the end of its input")
			cmd.Process.Kill()
			<-exited
		}
	})
	return c
}

func newClient(t *testing.T, in io.WriteCloser, out io.Reader) *client {
	c := &client{t: t, in: in, msgs: make(chan message, 64), readErr: make(chan error, 1), done: make(chan error, 1)}
	rd := framing.NewReader(out, 1<<30, func(err error) { t.Errorf("the adapter wrote a bad frame: %v", err) })
	go func() {
		for {
			body, err := rd.Read()
			if err != nil {
				c.readErr <- err
				close(c.msgs)
				return
			}
			var m message
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("the adapter wrote %q: %v", body, err)
				continue
			}
			c.msgs <- m
		}
	}()
	return c
}

// raw writes bytes to the adapter as they are.
func (c *client) raw(b []byte) {
	c.t.Helper()
	if _, err := c.in.Write(b); err != nil {
		c.t.Fatalf("writing to the adapter: %v", err)
	}
}

// send writes a request and returns its seq.
func (c *client) send(command string, args any) int {
	c.t.Helper()
	c.seq++
	m := map[string]any{"seq": c.seq, "type": "request", "command": command}
	if args != nil {
		m["arguments"] = args
	}
	body, err := json.Marshal(m)
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(framing.Append(nil, body))
	return c.seq
}

// next returns the adapter's next message, checking that messages are
// numbered 1, 2, 3, ….
func (c *client) next() message {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatalf("the adapter's output ended: %v", <-c.readErr)
		}
		if m.Seq != c.lastIn+1 {
			c.t.Errorf("message %s%s has seq %d after %d", m.Command, m.Event, m.Seq, c.lastIn)
		}
		c.lastIn = m.Seq
		return m
	case <-time.After(timeout):
		c.t.Fatalf("no message from the adapter in %v", timeout)
	}
	return message{}
}

// response waits for the response to request seq (the events before it
// are kept for event).
func (c *client) response(seq int) message {
	c.t.Helper()
	for {
		m := c.next()
		switch m.Type {
		case "event":
			c.events = append(c.events, m)
		case "response":
			if m.RequestSeq != seq {
				c.t.Fatalf("response to request %d (%s) while waiting for %d", m.RequestSeq, m.Command, seq)
			}
			return m
		default:
			c.t.Fatalf("message of type %q", m.Type)
		}
	}
}

// do sends a request and returns its successful response's body in out
// (if not nil).
func (c *client) do(command string, args, out any) message {
	c.t.Helper()
	m := c.response(c.send(command, args))
	if !m.Success {
		c.t.Fatalf("%s failed: %s", command, m.Message)
	}
	if out != nil {
		if err := json.Unmarshal(m.Body, out); err != nil {
			c.t.Fatalf("%s answered %s: %v", command, m.Body, err)
		}
	}
	return m
}

// fail sends a request that must fail and returns the message.
func (c *client) fail(command string, args any) message {
	c.t.Helper()
	m := c.response(c.send(command, args))
	if m.Success || m.Message == "" {
		c.t.Fatalf("%s: success %v, message %q; want an error response", command, m.Success, m.Message)
	}
	return m
}

// event returns the next event, which must be name, with its body in out.
func (c *client) event(name string, out any) {
	c.t.Helper()
	var m message
	if len(c.events) > 0 {
		m, c.events = c.events[0], c.events[1:]
	} else {
		m = c.next()
	}
	if m.Type != "event" || m.Event != name {
		c.t.Fatalf("got %s %s%s (%s), want the event %s", m.Type, m.Command, m.Event, m.Body, name)
	}
	if out != nil {
		if err := json.Unmarshal(m.Body, out); err != nil {
			c.t.Fatalf("event %s: %s: %v", name, m.Body, err)
		}
	}
}

// noEvents checks that no event is pending.
func (c *client) noEvents() {
	c.t.Helper()
	if len(c.events) > 0 {
		c.t.Errorf("unexpected events %+v", c.events)
	}
}
