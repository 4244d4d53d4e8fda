package sdpor_test

import (
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine/internal/dpor"
	"weft/engine/internal/driver"
	"weft/engine/internal/sdpor"
	"weft/engine/interp"
	"weft/examples"
)

// ownLoop is an SDPOR exploration with fine steps that drives the tree
// with a step loop of its own, as the stateful exploration will (there
// with a visited set beside it): it shares nothing with package dpor's
// loop but the tree.
func ownLoop(w *driver.Worker) {
	m := w.M()
	tr := sdpor.New(w.Prog, m, w.Clocks(), w.MayAccesses, sdpor.Config{})
	step := func(d, t, alt int) bool {
		before := len(m.Threads)
		ok := w.StepAlt(t, alt, &w.Evs[d])
		tr.Stepped(m, t, before)
		return ok
	}
	undo := func() {
		tr.Unstepped()
		w.Undo()
	}
	retreat := func(d int) {
		undo()
		tr.Retreat(d, &w.Evs[d])
	}
	ended := func(end sdpor.End, d int) bool {
		switch end {
		case sdpor.Open:
			return false
		case sdpor.Blocked:
			w.Stats.SSB++
		case sdpor.Maximal:
			w.Deadlock(d)
		case sdpor.CutOff:
			w.ExecutionDone()
		}
		return true
	}
	enter := func(d int) bool {
		w.GrowEvents(d)
		var last *interp.Event
		if d > 0 {
			last = &w.Evs[d-1]
		}
		return ended(tr.Enter(d, last), d)
	}
	if enter(0) {
		return
	}
	for d := 0; ; {
		if w.Stopping() {
			return
		}
		p, alt := tr.Next(d)
		if p < 0 {
			if d == 0 {
				return
			}
			d--
			retreat(d)
			continue
		}
		ev := &w.Evs[d]
		ok := step(d, int(p), alt)
		w.Stats.Events += int64(ev.Steps())
		tr.AddRaces(int32(d), ev)
		if w.Clocks().Past(int32(d))-1 >= w.Opts.MaxSteps {
			// Beyond the step bound: p is cut here and below.
			undo()
			ended(tr.Cut(d, p), d)
			continue
		}
		w.CheckDataRaces(int32(d), ev)
		if !ok {
			tr.AddBlockedRaces(int32(d + 1))
			if ev.Stop == interp.StopAssume {
				w.Stats.AssumeBlocked++
			}
			w.ReportStop(d, ev)
			w.ExecutionDone()
			retreat(d)
			tr.ExploreOthers(d)
			continue
		}
		if w.Halted() {
			continue
		}
		if w.Long() {
			if !w.ExecutionDone() {
				retreat(d)
			}
			continue
		}
		d++
		if enter(d) {
			d--
			retreat(d)
		}
	}
}

// TestOwnLoop: a step loop other than dpor's drives the tree and explores
// exactly what dpor's SDPOR explores (with every access a step, as the
// loop has no coarse steps): the same executions, sleep-set-blocked ones,
// failed assumes, spin-blocked ones and steps, on every example (locks,
// condition variables, spin loops cut by the step bound, assertions,
// runtime errors) and on models with a choose, a signal with several
// waiters, and a thread cut by the step bound.
func TestOwnLoop(t *testing.T) {
	files, err := filepath.Glob("../../../examples/*.weft")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	type model struct{ name, src string }
	var models []model
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if examples.LoopsForever(src) {
			// Both explorations run into the step bound in every
			// execution, and some do not finish within the minute.
			continue
		}
		models = append(models, model{filepath.Base(f), string(src)})
	}
	models = append(models, model{"choose", `
var x int
thread a {
    var v int = choose 0..3
    x = v
}
thread b {
    assert x != 2
}`}, model{"signal", `
var m mutex
var c cond
var n int
thread w[k in 0..3] {
    lock(m)
    n = n + 1
    wait(c, m)
    unlock(m)
}
thread s {
    lock(m)
    signal(c)
    unlock(m)
}`}, model{"step bound", `
var x int
var y int
thread a {
    for i in 0..100 {
        x = x + 1
    }
}
thread b {
    x = 5
    y = 1
}
thread c {
    y = 2
}`})
	for _, mo := range models {
		t.Run(mo.name, func(t *testing.T) {
			ld := lower.Load(mo.name, []byte(mo.src))
			if ld.Exec == nil {
				t.Fatalf("not lowered: %v", ld.Diagnostics)
			}
			cfg := driver.Config{MaxSteps: 60, MaxTraces: 10, LocalBudget: interp.DefaultLocalBudget, EveryAccess: true}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			want := driver.Explore(ctx, ld.Exec, cfg, dpor.Mode(dpor.SDPOR, nil))
			got := driver.Explore(ctx, ld.Exec, cfg, driver.Mode{Clocks: driver.DependenceClocks, Explore: ownLoop})
			if want.Stopped != driver.NotStopped || got.Stopped != driver.NotStopped {
				t.Fatalf("stopped: dpor %v, own loop %v", want.Stopped, got.Stopped)
			}
			type counts struct{ Executions, SSB, AssumeBlocked, SpinBlocked, Events int64 }
			w := counts{want.Executions, want.SSB, want.AssumeBlocked, want.SpinBlocked, want.Events}
			g := counts{got.Executions, got.SSB, got.AssumeBlocked, got.SpinBlocked, got.Events}
			if g != w {
				t.Errorf("own loop %+v, dpor %+v", g, w)
			}
			if w.Executions == 0 {
				t.Errorf("no execution explored")
			}
			t.Logf("%+v", g)
		})
	}
}

// TestTreeCannotMove: the tree holds no worker and reads the machine
// through an interface with nothing that moves it, so no call in the core
// can step or undo behind the exploration's back (issue 28: explorer.step
// beside an embedded Driver.Step, where calling the wrong one silently
// skipped bookkeeping).
func TestTreeCannotMove(t *testing.T) {
	moves := map[string]bool{"Step": true, "StepAlt": true, "StepBounded": true, "Probe": true, "Undo": true, "UndoTo": true, "RestartFine": true}
	mt := reflect.TypeFor[sdpor.Machine]()
	for i := range mt.NumMethod() {
		if name := mt.Method(i).Name; moves[name] {
			t.Errorf("sdpor.Machine has %s", name)
		}
	}
	var _ sdpor.Machine = (*interp.Machine)(nil)
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pkgs {
		for name, f := range p.Files {
			n++
			for _, imp := range f.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == "weft/engine/internal/driver" {
					t.Errorf("%s imports the driver: the tree could reach a worker", name)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no source file parsed")
	}
	tt := reflect.TypeFor[sdpor.Tree]()
	for i := range tt.NumField() {
		if f := tt.Field(i); f.Type == reflect.TypeFor[*interp.Machine]() {
			t.Errorf("Tree.%s is the machine itself, not the read-only Machine", f.Name)
		}
	}
}
