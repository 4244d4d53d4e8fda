package interp

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// paperSuite is `weft bench --suite paper` (cmd/weft/bench.go): the rows
// of the QPOR paper's comparison that the project tracks.
var paperSuite = []string{
	"disp_5_2", "disp_5_3", "disp_5_4", "disp_5_5",
	"mpat_4", "mpat_5", "mpat_6",
	"mpc_2_5", "mpc_3_5", "mpc_4_5",
	"pi_5", "pi_6", "pi_7", "pi_8",
	"pol_7_3", "pol_8_3", "pol_9_3", "pol_10_3", "pol_11_3", "pol_12_3",
	"fig1_2", "fig1_4", "fig1_6", "fig1_8", "fig1_10", "fig1_12",
}

// BenchmarkFingerprint runs the same random walk of steps and undos on
// each model of the paper suite with the fingerprint off and on, and
// reports the time per step (each step is undone once, its undo
// included): the cost of keeping the hash is the difference.
//
//	go test ./engine/interp -run '^$' -bench Fingerprint -count 5
//
// Times on a loaded machine vary a lot; instructions do not. The count
// per step is the difference between two walk counts (each run also loads
// the model), under cachegrind (GODEBUG=cpu.rdtscp=off: valgrind 3.19
// does not know the instruction Go's runtime reads the clock with):
//
//	go test -c -o /tmp/interp.test ./engine/interp
//	cd engine/interp && GODEBUG=cpu.rdtscp=off GOMAXPROCS=1 GOGC=off \
//	  valgrind --tool=cachegrind --cache-sim=no /tmp/interp.test \
//	  -test.run '^$' -test.bench 'Fingerprint/mpat_6/on$' -test.benchtime 205x
//
// and the same with 5x: (Ir(205) - Ir(5)) / (205·steps/op(205) -
// 5·steps/op(5)).
func BenchmarkFingerprint(b *testing.B) {
	for _, name := range paperSuite {
		src, err := os.ReadFile(filepath.Join("../../benchmarks", name+".weft"))
		if err != nil {
			b.Fatal(err)
		}
		prog := loadSrc(b, name, string(src))
		for _, on := range []bool{false, true} {
			mode := "off"
			if on {
				mode = "on"
			}
			b.Run(name+"/"+mode, func(b *testing.B) {
				m, err := NewMachineConfig(prog, Config{Fingerprint: on})
				if err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewSource(1))
				var ev Event
				steps := 0
				enabled := make([]int, 0, 64)
				b.ResetTimer()
				start := time.Now()
				for range b.N {
					// One walk: up to 2,000 steps, undoing a quarter of
					// them on the way, then back to the start.
					for range 2000 {
						enabled = enabled[:0]
						for i := range m.Threads {
							if m.Enabled(i) {
								enabled = append(enabled, i)
							}
						}
						if len(enabled) == 0 {
							break
						}
						th := enabled[r.Intn(len(enabled))]
						ok := m.StepAlt(th, r.Intn(m.Alternatives(th)), &ev)
						steps++
						if !ok {
							break
						}
						if r.Intn(4) == 0 {
							m.Undo()
						}
					}
					m.UndoTo(0)
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(steps), "ns/step")
				b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
			})
		}
	}
}

// BenchmarkAppendState measures AppendState (the exact encoding of
// --exact-states) on the states of the same random walk on each model of
// the paper suite: the time per call (each state encoded 16 times in a
// row, timed together, so that the clock's cost is small beside it) and
// the size of the encoding.
//
//	go test ./engine/interp -run '^$' -bench AppendState -count 5
func BenchmarkAppendState(b *testing.B) {
	const batch = 16
	for _, name := range paperSuite {
		src, err := os.ReadFile(filepath.Join("../../benchmarks", name+".weft"))
		if err != nil {
			b.Fatal(err)
		}
		prog := loadSrc(b, name, string(src))
		b.Run(name, func(b *testing.B) {
			m, err := NewMachineConfig(prog, Config{Fingerprint: true})
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewSource(1))
			var ev Event
			var buf []byte
			calls, size := 0, 0
			var spent time.Duration
			enabled := make([]int, 0, 64)
			b.ResetTimer()
			for range b.N {
				for range 2000 {
					start := time.Now()
					for range batch {
						buf = m.AppendState(buf[:0])
					}
					spent += time.Since(start)
					calls += batch
					size += len(buf)
					enabled = enabled[:0]
					for i := range m.Threads {
						if m.Enabled(i) {
							enabled = append(enabled, i)
						}
					}
					if len(enabled) == 0 {
						break
					}
					th := enabled[r.Intn(len(enabled))]
					if !m.StepAlt(th, r.Intn(m.Alternatives(th)), &ev) {
						break
					}
					if r.Intn(4) == 0 {
						m.Undo()
					}
				}
				m.UndoTo(0)
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(calls), "ns/call")
			b.ReportMetric(float64(size*batch)/float64(calls), "B/state")
		})
	}
}
