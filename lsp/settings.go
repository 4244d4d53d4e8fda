package lsp

import (
	"encoding/json"
	"fmt"
	"runtime"
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
	// assertion, deadlock, data-race, runtime-error, step-bound.
	BugKinds []string `json:"bugKinds"`
}

// DefaultSettings are the settings of a client that sets none.
func DefaultSettings() Settings {
	return Settings{
		IdleDelayMs:         300,
		QuickBudgetMs:       2000,
		Escalate:            true,
		EscalationAlgorithm: string(engine.Optimal),
		EscalationCeilingMs: 5 * 60 * 1000,
		MaxSteps:            engine.DefaultMaxSteps,
		SMT:                 true,
		CDPOR:               true,
	}
}

var bugKinds = []string{"assertion", "deadlock", "data-race", "runtime-error", "step-bound"}

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
	if err := next.validate(); err != nil {
		return s, err
	}
	return next, nil
}

func (s Settings) validate() error {
	switch {
	case s.IdleDelayMs < 0 || s.IdleDelayMs > 60_000:
		return fmt.Errorf("settings: idleDelayMs must be between 0 and 60000, not %d", s.IdleDelayMs)
	case s.QuickBudgetMs <= 0:
		return fmt.Errorf("settings: quickBudgetMs must be positive, not %d", s.QuickBudgetMs)
	case s.EscalationCeilingMs <= 0:
		return fmt.Errorf("settings: escalationCeilingMs must be positive, not %d", s.EscalationCeilingMs)
	case s.MaxMemoryMB < 0:
		return fmt.Errorf("settings: maxMemoryMB must not be negative (0: a quarter of the machine's memory)")
	case s.MaxConcurrent < 0:
		return fmt.Errorf("settings: maxConcurrent must not be negative (0: cores minus one)")
	case s.MaxSteps <= 0:
		return fmt.Errorf("settings: maxSteps must be positive, not %d", s.MaxSteps)
	}
	known := false
	for _, a := range engine.Algorithms {
		known = known || string(a) == s.EscalationAlgorithm
	}
	if !known {
		return fmt.Errorf("settings: unknown escalationAlgorithm %q", s.EscalationAlgorithm)
	}
	for _, k := range s.BugKinds {
		ok := false
		for _, want := range bugKinds {
			ok = ok || k == want
		}
		if !ok {
			return fmt.Errorf("settings: unknown bug kind %q (known: %s)", k, strings.Join(bugKinds, ", "))
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
	}
	return append(out, ceiling)
}

func (s Settings) maxMemory() int64 {
	if s.MaxMemoryMB == 0 {
		return 0
	}
	return int64(s.MaxMemoryMB) << 20
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
