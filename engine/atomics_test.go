package engine_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"weft/engine"
)

// Atomics synchronise (language version 2): an atomic write (to an
// `atomic` variable, or inside an atomic block) releases, and an atomic
// read that reads it acquires. These models are the handoff of issue 17
// and its variants, with bounded waiting (a spin-wait would reach the
// step bound); each lists the data races every mode must report (by
// variable) and the other bugs (by kind).
var atomicsCases = []struct {
	name  string
	src   string
	races []string // the variables with a data race
	bugs  []string // the kinds of the other bugs (but step-bound bugs, which are not compared)
}{
	{"handoff, spinning", `
// max-steps: 24
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    while flag == 0 {
    }
    assert data == 42, "data published before flag"
}
`, nil, nil},
	{"flag raised before the data, spinning", `
// max-steps: 24
var flag atomic int
var data int

thread producer {
    flag = 1
    data = 42
}

thread consumer {
    while flag == 0 {
    }
    assert data == 42, "data published before flag"
}
`, []string{"data"}, []string{"assertion"}},
	{"handoff", `
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var seen bool = false
    for tries in 0..2 {
        if flag == 1 {
            seen = true
            break
        }
    }
    if seen {
        assert data == 42, "data published before flag"
    }
}
`, nil, nil},
	{"handoff, no loop", `
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    if flag == 1 {
        assert data == 42, "data published before flag"
        data = 0
    }
}
`, nil, nil},
	{"flag raised before the data", `
var flag atomic int
var data int

thread producer {
    flag = 1
    data = 42
}

thread consumer {
    if flag == 1 {
        assert data == 42, "data published before flag"
    }
}
`, []string{"data"}, []string{"assertion"}},
	{"reading the flag without waiting", `
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var f int = flag
    assert data == 42 || f == 0, "data published before flag"
}
`, []string{"data"}, nil},
	// The meddler reads the flag (acquiring the producer's clock) and
	// writes it again plainly: a consumer that reads the plain write
	// acquires nothing, so its read of data races with the producer's
	// write; read from the producer's atomic block, it would not.
	{"a plain write between release and acquire", `
var flag int
var data int

thread producer {
    data = 42
    atomic {
        flag = 1
    }
}

thread meddler {
    var g int
    atomic {
        g = flag
    }
    if g == 1 {
        flag = 1
    }
}

thread consumer {
    var f int
    atomic {
        f = flag
    }
    if f == 1 {
        assert data == 42
    }
}
`, []string{"data", "flag"}, nil},
	{"atomic blocks publish to atomic blocks", `
var ready int
var data [2]int

thread producer {
    data[0] = 1
    data[1] = 2
    atomic {
        ready = ready + 1
    }
}

thread consumer {
    var r int
    atomic {
        r = ready
    }
    if r == 1 {
        assert data[0] + data[1] == 3
        data[0] = 0
    }
}
`, nil, nil},
	// An atomic block that writes what it then reads reads its own write:
	// it acquires nothing from the earlier writer.
	{"an atomic block reads its own write", `
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    var f int
    atomic {
        flag = 2
        f = flag
    }
    if f == 2 {
        data = 1
    }
}
`, []string{"data"}, nil},
	// A chain: the relay acquires from the producer and releases to the
	// consumer.
	{"release chain through a relay", `
var a atomic int
var b atomic int
var data int

thread producer {
    data = 42
    a = 1
}

thread relay {
    if a == 1 {
        b = 1
    }
}

thread consumer {
    if b == 1 {
        assert data == 42
    }
}
`, nil, nil},
	// Reading an atomic flag that the producer has not raised yet orders
	// nothing.
	{"acquire only what was read", `
var flag atomic int
var data int

thread producer {
    data = 42
    flag = 1
}

thread consumer {
    if flag == 0 {
        data = 7
    }
}
`, []string{"data"}, nil},
}

// TestAtomicsSynchronise: the races and bugs of atomicsCases in every mode,
// fine and coarse, and every mode against dfs.
func TestAtomicsSynchronise(t *testing.T) {
	for _, tc := range atomicsCases {
		t.Run(tc.name, func(t *testing.T) {
			prog := load(t, tc.name, tc.src)
			want := append([]string(nil), tc.bugs...)
			for _, v := range tc.races {
				want = append(want, "data-race:"+v)
			}
			sort.Strings(want)
			for _, algo := range engine.Algorithms {
				for _, every := range []bool{false, true} {
					res, err := engine.Explore(context.Background(), prog, engine.Options{Algorithm: algo, EveryAccess: every, MaxSteps: maxSteps(prog)})
					if err != nil {
						t.Fatal(err)
					}
					if !res.Complete {
						t.Fatalf("%s: incomplete (%s)", algo, res.Stopped)
					}
					if got := bugSummary(res); !slices.Equal(got, want) {
						t.Errorf("%s (every access %v): bugs %v, want %v", algo, every, got, want)
						for _, b := range res.Bugs {
							t.Logf("  %s: %s", b.Kind, b.Message)
						}
					}
					checkReproduce(t, tc.name, string(algo), prog, res)
				}
			}
			compareModes(t, tc.name, prog, tc.src)
			compareQPOR(t, tc.name, prog, tc.src)
		})
	}
}

// bugSummary lists the kinds of res's bugs but step-bound ones, data races as
// "data-race:VARIABLE", sorted and without repeats.
func bugSummary(res *engine.Result) []string {
	var out []string
	for _, b := range res.Bugs {
		if b.Kind == engine.BugStepBound {
			continue
		}
		k := string(b.Kind)
		if b.Kind == engine.BugDataRace {
			// "data race on data[1]: …"
			v := strings.TrimPrefix(b.Message, "data race on ")
			v, _, _ = strings.Cut(v, ":")
			v, _, _ = strings.Cut(v, "[")
			k += ":" + v
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
