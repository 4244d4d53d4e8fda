package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// promise is a value derived from a snapshot, computed once for every
// caller, as in gopls' cache (memoize.Promise): the first caller starts
// the computation on its own goroutine, bounded by the snapshot's context
// (its lifetime), and every caller waits for it with its own context, so
// that a caller that gives up (a cancelled request) neither stops the
// computation for the others nor waits for it.
//
// Once a computation ends its value and error never change: a snapshot
// superseded while one ran keeps the error it got (its context stays
// cancelled).
type promise[T any] struct {
	mu      sync.Mutex
	started bool
	done    chan struct{} // closed when val and err are set
	val     T
	err     error
}

func newPromise[T any]() *promise[T] { return &promise[T]{done: make(chan struct{})} }

// start starts computing f(life) unless a computation started already. A
// panic of f is its error: it runs on a goroutine of its own, where it
// would end the server.
func (p *promise[T]) start(life context.Context, f func(context.Context) (T, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return
	}
	p.started = true
	go func() {
		defer close(p.done)
		defer func() {
			if r := recover(); r != nil {
				var zero T
				p.val, p.err = zero, fmt.Errorf("internal error: %v", r)
			}
		}()
		p.val, p.err = f(life)
	}()
}

// get starts the computation if need be and waits for it; ctx's error if
// ctx ends first.
func (p *promise[T]) get(ctx, life context.Context, f func(context.Context) (T, error)) (T, error) {
	p.start(life, f)
	return p.wait(ctx)
}

// wait waits for a started computation; ctx's error if ctx ends first,
// and errNotStarted if none started.
func (p *promise[T]) wait(ctx context.Context) (T, error) {
	var zero T
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	if !started {
		return zero, errNotStarted
	}
	select {
	case <-p.done: // computed: whatever ctx says
		return p.val, p.err
	default:
	}
	select {
	case <-p.done:
		return p.val, p.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// ready returns the value if it is computed, without waiting; ok is false
// when it is not (or not started).
func (p *promise[T]) ready() (val T, err error, ok bool) {
	select {
	case <-p.done:
		return p.val, p.err, true
	default:
		return val, nil, false
	}
}

// errNotStarted is promise.wait's error when no computation started.
var errNotStarted = errors.New("not started")
