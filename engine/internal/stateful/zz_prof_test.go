package stateful_test

import (
	"context"
	"testing"
	"time"

	"weft/analysis/lower"
	"weft/engine"
)

func TestZZProf(t *testing.T) {
	src := []byte(`
var v [8]int
thread w[i in 0..8] {
    for k in 0..6 {
        v[i] = k + 1
    }
}
`)
	ld := lower.Load("wide.weft", src)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := engine.Explore(ctx, ld.Exec, engine.Options{Algorithm: engine.Stateful, MaxSteps: 1 << 20, Stateful: engine.StatefulOptions{POR: engine.StatefulNone}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("states %d transitions %d stopped %v", res.States, res.Transitions, res.Stopped)
}
