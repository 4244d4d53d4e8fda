package lsp

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"weft/engine"
)

// Settings are what a client may configure, through initializationOptions
// or workspace/didChangeConfiguration (either the object itself or an
// object under "weft"). Durations are in milliseconds, sizes in megabytes.
type Settings struct {
	// IdleDelayMs is the quiet period after an edit before the quick check
	// starts.
	IdleDelayMs int `json:"idleDelayMs"`
	// QuickBudgetMs bounds the quick check (QPOR, k=1).
	QuickBudgetMs int `json:"quickBudgetMs"`
	// Escalate turns on the checks that follow the quick one while the
	// editor stays idle.
	Escalate bool `json:"escalate"`
	// EscalationAlgorithm is the mode of the escalated checks.
	EscalationAlgorithm string `json:"escalationAlgorithm"`
	// EscalationCeilingMs is the budget of the last escalated check; the
	// budgets grow ×6 from 10 s up to it.
	EscalationCeilingMs int `json:"escalationCeilingMs"`
	// MaxMemoryMB bounds the memory of the explorations (0: a quarter of
	// the machine's memory).
	MaxMemoryMB int `json:"maxMemoryMB"`
	// MaxConcurrent bounds the explorations running at once over all
	// documents (0: the number of cores minus one, at least one).
	MaxConcurrent int `json:"maxConcurrent"`
	// MaxSteps is the step bound of an execution.
	MaxSteps int `json:"maxSteps"`
	// CDPOR runs cdpor, instead of qpor for the quick check and instead of
	// EscalationAlgorithm for the first escalated one, on a model whose
	// independence constraints apply (a race-free model with conditions
	// on atomic blocks; see the package doc, "Schedule").
	CDPOR bool `json:"cdpor"`
	// SMT asks z3 for the independence conditions of pairs of atomic
	// blocks (the hover and the cdpor checks); without it, or without z3,
	// the conditions are the syntactic rules'.
	SMT bool `json:"smt"`
	// AssumeNoOverflow lets the cdpor checks use the conditions that hold
	// only where no arithmetic overflows (as `weft check
	// --assume-no-overflow`): an overflow that only an order they merge
	// would hit may go unreported.
	AssumeNoOverflow bool `json:"assumeNoOverflow"`
	// BugKinds lists the kinds of bugs reported (empty: all of them):
	// engine.BugKinds (assertion, deadlock, data-race, runtime-error,
	// step-bound).
	BugKinds []string `json:"bugKinds"`
	// Stateful configures the stateful checks the server runs on a model
	// that loops forever (see "Stateful checks" in the package doc).
	Stateful StatefulSettings `json:"stateful"`
}

// StatefulSettings configure the server's stateful checks.
type StatefulSettings struct {
	// POR is the stateful mode's partial-order reduction, one of
	// engine.StatefulPORs (none, spor, de, dl; weft check --stateful-por).
	POR string `json:"por"`
}

// DefaultSettings are the settings of a client that sets none.
func DefaultSettings() Settings {
	return Settings{
		IdleDelayMs:         300,
		QuickBudgetMs:       2000,
		Escalate:            true,
		EscalationAlgorithm: string(engine.Optimal),
		EscalationCeilingMs: 5 * 60 * 1000,
		MaxSteps:            int(engine.OptionLimits().MaxSteps.Default),
		SMT:                 true,
		CDPOR:               true,
		Stateful:            StatefulSettings{POR: string(engine.DefaultStatefulPOR)},
	}
}

// merge applies the settings present in raw (JSON) to s and checks them.
// Unknown fields are ignored (a newer client may send more); a bad value
// leaves s unchanged and is an error that says which.
func (s Settings) merge(raw []byte) (Settings, error) {
	raw = []byte(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var wrapper struct {
		Weft json.RawMessage `json:"weft"`
	}
	if err := json.Unmarshal(raw, &wrapper); err == nil && len(wrapper.Weft) > 0 && string(wrapper.Weft) != "null" {
		raw = wrapper.Weft
	}
	next := s
	if err := json.Unmarshal(raw, &next); err != nil {
		return s, fmt.Errorf("settings: %w", err)
	}
	if err := next.Validate(); err != nil {
		return s, err
	}
	return next, nil
}

// The ranges of the numeric settings that are the server's own (those
// that are engine options come from engine.OptionLimits, as weft check's
// flags do).
const (
	// maxDurationMs bounds the settings in milliseconds (a year): far
	// below the 2^63 ns where a time.Duration overflows, so that the
	// deadlines and the ×6 growth of the escalation stay exact.
	maxDurationMs = 365 * 24 * 3600 * 1000
	// maxConcurrentLimit bounds the explorations running at once: each
	// may use maxMemoryMB, and more at once than cores only share them.
	maxConcurrentLimit = 1024
)

// numericSetting is the range of one numeric setting and its value.
type numericSetting struct {
	name      string
	v, lo, hi int64
	// hiText is hi in words when it says more than the number ("2^30").
	hiText string
	note   string
}

// numericSettings are s's numeric settings with their ranges: what
// Validate checks, and what the VS Code extension's manifest declares
// (TestManifestRanges).
func (s Settings) numericSettings() []numericSetting {
	lim := engine.OptionLimits()
	return []numericSetting{
		{"idleDelayMs", int64(s.IdleDelayMs), 0, 60_000, "", ""},
		{"quickBudgetMs", int64(s.QuickBudgetMs), 1, maxDurationMs, "", " (a year)"},
		{"escalationCeilingMs", int64(s.EscalationCeilingMs), 1, maxDurationMs, "", " (a year)"},
		// In MB: engine.MaxMaxMemory bytes (weft check --max-memory has
		// the same bound).
		{"maxMemoryMB", int64(s.MaxMemoryMB), lim.MaxMemory.Min, lim.MaxMemory.Max >> 20, "", " (0: a quarter of the machine's memory)"},
		{"maxConcurrent", int64(s.MaxConcurrent), 0, maxConcurrentLimit, "", " (0: the number of cores minus one)"},
		{"maxSteps", int64(s.MaxSteps), lim.MaxSteps.Min, lim.MaxSteps.Max, lim.MaxSteps.MaxText(), ""},
	}
}

// Validate refuses settings out of the ranges the server handles (for
// the engine's options, engine.OptionLimits, which weft check's flags
// use too) and unknown modes or kinds of bugs (engine.BugKinds), with an
// error that says which.
func (s Settings) Validate() error {
	for _, r := range s.numericSettings() {
		if r.v < r.lo || r.v > r.hi {
			hi := r.hiText
			if hi == "" {
				hi = fmt.Sprint(r.hi)
			}
			return fmt.Errorf("settings: %s must be from %d to %s%s, not %d", r.name, r.lo, hi, r.note, r.v)
		}
	}
	known := false
	for _, a := range engine.Algorithms {
		known = known || string(a) == s.EscalationAlgorithm
	}
	if !known {
		return fmt.Errorf("settings: unknown escalationAlgorithm %q", s.EscalationAlgorithm)
	}
	if !slices.Contains(engine.StatefulPORs(), engine.StatefulPOR(s.Stateful.POR)) {
		var known []string
		for _, p := range engine.StatefulPORs() {
			known = append(known, string(p))
		}
		return fmt.Errorf("settings: unknown stateful.por %q (known: %s)", s.Stateful.POR, strings.Join(known, ", "))
	}
	for _, k := range s.BugKinds {
		if !engine.IsBugKind(k) {
			var known []string
			for _, kind := range engine.BugKinds() {
				known = append(known, string(kind))
			}
			return fmt.Errorf("settings: unknown bug kind %q (known: %s)", k, strings.Join(known, ", "))
		}
	}
	return nil
}

func (s Settings) idleDelay() time.Duration { return time.Duration(s.IdleDelayMs) * time.Millisecond }

func (s Settings) quickBudget() time.Duration {
	return time.Duration(s.QuickBudgetMs) * time.Millisecond
}

// escalationBudgets are the budgets of the escalated checks, in order.
func (s Settings) escalationBudgets() []time.Duration {
	ceiling := time.Duration(s.EscalationCeilingMs) * time.Millisecond
	var out []time.Duration
	for b := 10 * time.Second; b < ceiling; b *= 6 {
		out = append(out, b)
		if b > ceiling/6 {
			break // the next budget would pass the ceiling (and b*6 could overflow)
		}
	}
	return append(out, ceiling)
}

func (s Settings) maxMemory() int64 {
	if s.MaxMemoryMB == 0 {
		return 0
	}
	return int64(s.MaxMemoryMB) << 20
}

// heapLimit is the bound on the whole server's heap that each check
// stops at (engine.Options.HeapLimit): room for the budget of every
// check that may run at once, but never more than three quarters of the
// memory the process may use (engine.DefaultMaxMemory is a quarter of
// it), so that the estimates the per-check accounting rests on can never
// let the server be killed for want of memory. Each check's own memory
// is bounded by maxMemory, so one big model no longer stops the others.
func (s Settings) heapLimit() int64 {
	per := s.maxMemory()
	if per == 0 {
		per = engine.DefaultMaxMemory()
	}
	return min(satMul(per, int64(s.maxConcurrent())), satMul(engine.DefaultMaxMemory(), 3))
}

// satMul is a*b for positive a and b, saturating instead of
// overflowing.
func satMul(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func (s Settings) maxConcurrent() int {
	if s.MaxConcurrent > 0 {
		return s.MaxConcurrent
	}
	return max(1, runtime.NumCPU()-1)
}

// reports says whether bugs of this kind are shown.
func (s Settings) reports(kind string) bool {
	if len(s.BugKinds) == 0 {
		return true
	}
	for _, k := range s.BugKinds {
		if k == kind {
			return true
		}
	}
	return false
}
