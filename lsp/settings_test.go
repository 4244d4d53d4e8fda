package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"weft/engine"
)

// TestSettingsRanges: every numeric setting takes the values the code
// behind it can handle, up to the largest, and refuses the others with
// an error that names the setting and the range; a refused setting
// leaves the previous settings as they were.
func TestSettingsRanges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string // JSON
		err   string // "" when accepted
	}{
		{"idleDelayMs", "0", ""},
		{"idleDelayMs", "60000", ""},
		{"idleDelayMs", "60001", "idleDelayMs must be from 0 to 60000, not 60001"},
		{"idleDelayMs", "-1", "idleDelayMs must be from 0 to 60000, not -1"},
		{"quickBudgetMs", "1", ""},
		{"quickBudgetMs", "31536000000", ""},
		{"quickBudgetMs", "0", "quickBudgetMs must be from 1 to 31536000000 (a year), not 0"},
		{"quickBudgetMs", "31536000001", "quickBudgetMs must be from 1 to 31536000000 (a year), not 31536000001"},
		{"quickBudgetMs", "9223372036854775807", "quickBudgetMs must be from 1 to 31536000000"},
		{"escalationCeilingMs", "1", ""},
		{"escalationCeilingMs", "31536000000", ""},
		{"escalationCeilingMs", "0", "escalationCeilingMs must be from 1 to 31536000000 (a year), not 0"},
		{"escalationCeilingMs", "8880000000000", "escalationCeilingMs must be from 1 to 31536000000 (a year), not 8880000000000"},
		{"escalationCeilingMs", "9220000000000", "escalationCeilingMs must be from 1 to 31536000000"},
		{"escalationCeilingMs", "9223372036854775807", "escalationCeilingMs must be from 1 to 31536000000"},
		{"escalationCeilingMs", "1e30", "escalationCeilingMs"},
		{"maxMemoryMB", "0", ""},
		{"maxMemoryMB", "4398046511104", ""},
		{"maxMemoryMB", "4398046511105", "maxMemoryMB must be from 0 to 4398046511104 (0: a quarter of the machine's memory), not 4398046511105"},
		{"maxMemoryMB", "8796093022208", "maxMemoryMB must be from 0 to 4398046511104"},
		{"maxMemoryMB", "-1", "maxMemoryMB must be from 0 to 4398046511104"},
		{"maxConcurrent", "0", ""},
		{"maxConcurrent", "1024", ""},
		{"maxConcurrent", "1025", "maxConcurrent must be from 0 to 1024 (0: the number of cores minus one), not 1025"},
		{"maxConcurrent", "-1", "maxConcurrent must be from 0 to 1024"},
		{"maxSteps", "1", ""},
		{"maxSteps", "1073741824", ""},
		{"maxSteps", "1073741825", "maxSteps must be from 1 to 1073741824 (2^30), not 1073741825"},
		{"maxSteps", "4611686018427387904", "maxSteps must be from 1 to 1073741824"},
		{"maxSteps", "0", "maxSteps must be from 1 to 1073741824"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			prev := DefaultSettings()
			prev.IdleDelayMs = 123 // a previous setting, to be kept
			next, err := prev.merge([]byte(fmt.Sprintf(`{"weft": {"%s": %s, "idleDelayMs": 456}}`, tc.name, tc.value)))
			if tc.name == "idleDelayMs" {
				next, err = prev.merge([]byte(fmt.Sprintf(`{"weft": {"%s": %s}}`, tc.name, tc.value)))
			}
			if tc.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
			if next.IdleDelayMs != 123 {
				t.Errorf("a refused setting changed idleDelayMs to %d; the previous settings must stay", next.IdleDelayMs)
			}
		})
	}
}

// TestEscalationBudgets: the escalated checks' budgets grow ×6 from 10 s
// and end at the ceiling, never past it, for every ceiling the settings
// accept, the largest included (with a ceiling near 2^63 ns the ×6
// growth overflowed and the loop never ended).
func TestEscalationBudgets(t *testing.T) {
	for _, tc := range []struct {
		ceilingMs int
		want      []time.Duration
	}{
		{1, []time.Duration{time.Millisecond}},
		{10_000, []time.Duration{10 * time.Second}},
		{60_000, []time.Duration{10 * time.Second, time.Minute}},
		{300_000, []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute}},
		{360_001, []time.Duration{10 * time.Second, time.Minute, 6 * time.Minute, 360001 * time.Millisecond}},
		{maxDurationMs, nil},
	} {
		s := DefaultSettings()
		s.EscalationCeilingMs = tc.ceilingMs
		if err := s.Validate(); err != nil {
			t.Fatalf("ceiling %d refused: %v", tc.ceilingMs, err)
		}
		got := s.escalationBudgets()
		if tc.want != nil && fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ceiling %d ms: budgets %v, want %v", tc.ceilingMs, got, tc.want)
		}
		ceiling := time.Duration(tc.ceilingMs) * time.Millisecond
		if len(got) == 0 || len(got) > 20 || got[len(got)-1] != ceiling {
			t.Fatalf("ceiling %d ms: %d budgets, last %v", tc.ceilingMs, len(got), got[len(got)-1:])
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] || got[i] > ceiling {
				t.Errorf("ceiling %d ms: budgets %v do not grow up to it", tc.ceilingMs, got)
			}
		}
	}
	// Whatever the ceiling (validate aside), the growth saturates.
	for _, ms := range []int{8_880_000_000_000, 9_000_000_000_000, 9_223_372_036_854} {
		s := Settings{EscalationCeilingMs: ms}
		if got := s.escalationBudgets(); len(got) > 20 || got[len(got)-1] != time.Duration(ms)*time.Millisecond {
			t.Errorf("ceiling %d ms: %d budgets, last %v", ms, len(got), got[len(got)-1])
		}
	}
}

// TestManifestRanges: the VS Code extension declares each numeric
// setting with the range the server accepts, so that its settings
// editor flags what the server would refuse.
func TestManifestRanges(t *testing.T) {
	data, err := os.ReadFile("../vscode-extension/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Minimum *int64 `json:"minimum"`
					Maximum *int64 `json:"maximum"`
					Items   struct {
						Enum []string `json:"enum"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	for _, r := range (Settings{}).numericSettings() {
		p, ok := manifest.Contributes.Configuration.Properties["weft."+r.name]
		switch {
		case !ok:
			t.Errorf("weft.%s: not in the manifest", r.name)
		case p.Minimum == nil || *p.Minimum != r.lo || p.Maximum == nil || *p.Maximum != r.hi:
			t.Errorf("weft.%s: the manifest's range is %v to %v, the server's %d to %d", r.name, deref(p.Minimum), deref(p.Maximum), r.lo, r.hi)
		}
	}
	// The kinds of bugs the manifest offers are the engine's, in its order.
	var kinds []string
	for _, k := range engine.BugKinds() {
		kinds = append(kinds, string(k))
	}
	if got := manifest.Contributes.Configuration.Properties["weft.bugKinds"].Items.Enum; !slices.Equal(got, kinds) {
		t.Errorf("weft.bugKinds: the manifest offers %q, the engine reports %q", got, kinds)
	}
}

// TestBugKindsSetting: the bugKinds setting takes every kind the engine
// reports and refuses any other, listing them.
func TestBugKindsSetting(t *testing.T) {
	for _, k := range engine.BugKinds() {
		s := DefaultSettings()
		s.BugKinds = []string{string(k)}
		if err := s.Validate(); err != nil {
			t.Errorf("%s refused: %v", k, err)
		}
	}
	s := DefaultSettings()
	s.BugKinds = []string{"livelock"}
	want := `settings: unknown bug kind "livelock" (known: assertion, deadlock, data-race, runtime-error, step-bound)`
	if err := s.Validate(); err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// TestStatefulPORSetting: stateful.por takes each reduction of the
// stateful mode and refuses any other, listing them; the VS Code
// manifest offers the same, with the engine's default.
func TestStatefulPORSetting(t *testing.T) {
	if got := DefaultSettings().Stateful.POR; got != string(engine.DefaultStatefulPOR) {
		t.Errorf("default stateful.por %q, want the engine's %q", got, engine.DefaultStatefulPOR)
	}
	var pors []string
	for _, p := range engine.StatefulPORs() {
		pors = append(pors, string(p))
		next, err := DefaultSettings().merge([]byte(fmt.Sprintf(`{"weft": {"stateful": {"por": %q}}}`, p)))
		if err != nil || next.Stateful.POR != string(p) {
			t.Errorf("stateful.por %s: got %q, %v", p, next.Stateful.POR, err)
		}
	}
	prev := DefaultSettings()
	prev.Stateful.POR = string(engine.StatefulSPOR)
	next, err := prev.merge([]byte(`{"stateful": {"por": "optimal"}}`))
	want := `settings: unknown stateful.por "optimal" (known: none, spor, de, dl)`
	if err == nil || err.Error() != want || next.Stateful.POR != string(engine.StatefulSPOR) {
		t.Errorf("error %v (stateful.por now %q), want %s and the previous value kept", err, next.Stateful.POR, want)
	}
	// A change of another setting keeps the reduction.
	if next, err := prev.merge([]byte(`{"maxSteps": 10}`)); err != nil || next.Stateful.POR != string(engine.StatefulSPOR) {
		t.Errorf("another setting changed stateful.por to %q (%v)", next.Stateful.POR, err)
	}
	data, err := os.ReadFile("../vscode-extension/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Default any      `json:"default"`
					Enum    []string `json:"enum"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	p, ok := manifest.Contributes.Configuration.Properties["weft.stateful.por"]
	if !ok || !slices.Equal(p.Enum, pors) || p.Default != string(engine.DefaultStatefulPOR) {
		t.Errorf("weft.stateful.por in the manifest: %v %+v, want enum %q, default %q", ok, p, pors, engine.DefaultStatefulPOR)
	}
}
