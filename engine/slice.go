package engine

import (
	"context"
	"fmt"

	"weft/engine/internal/slicing"
)

// Slice returns b with its schedule cut to its causal slice, computed
// from the whole execution that found it (b.Full()): the steps its
// failing step or steps depend on, in the canonical order of their trace
// (see "Causal slices" in the package doc). Explore slices every bug already (unless
// Options.FullTraces); Slice is for a schedule from elsewhere (a saved
// report, a test). It returns b's full form when the slice keeps every
// step, and an error when the schedule does not replay.
func Slice(ctx context.Context, prog *Program, b *Bug) (*Bug, error) {
	full := b.Full()
	target := slicing.TargetOf(string(b.Kind))
	if target == slicing.None {
		return full, nil
	}
	events, m, err := ReplayContext(ctx, prog, full.Schedule, full.ReplayOptions(), nil)
	if err != nil {
		return nil, fmt.Errorf("slicing the trace of a %s: %w", b.Kind, err)
	}
	var s slicing.Slicer
	sched, choices := s.Schedule(events, s.Slice(prog, events, m, target))
	if len(sched) == len(full.Schedule) {
		return full, nil
	}
	c := *full
	c.Schedule, c.Choices, c.FullSchedule, c.FullChoices = sched, choices, full.Schedule, full.Choices
	return &c, nil
}
