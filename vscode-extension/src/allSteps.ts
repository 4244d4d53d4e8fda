// "Show all steps": a counterexample is its bug's causal slice (the steps
// the bug depends on); the whole execution it was sliced from is one
// command away. Pure: unit-tested without VS Code.

import type { TraceDocument } from './protocol';

/** weft.trace's third argument for the whole execution (docs/editors.md). */
export const ALL_STEPS = 'allSteps';

/** The arguments of weft.trace: the slice, or with allSteps the whole execution. */
export function traceArguments(uri: string, bugId: string, allSteps: boolean): string[] {
  return allSteps ? [uri, bugId, ALL_STEPS] : [uri, bugId];
}

/** Whether a trace leaves steps out, so that "show all steps" shows more. */
export function hasMoreSteps(trace: TraceDocument): boolean {
  return !trace.allSteps && (trace.fullSteps ?? 0) > trace.steps.length;
}

/**
 * The trace's length in words: "7 of 15 steps (those the bug depends on)"
 * for a slice, "all 15 steps" for a whole execution asked for, "6 steps"
 * otherwise.
 */
export function stepsWords(trace: TraceDocument): string {
  const n = trace.steps.length;
  if (hasMoreSteps(trace)) {
    return `${n} of ${trace.fullSteps} steps (those the bug depends on)`;
  }
  if (trace.allSteps) {
    return `all ${n} step${n === 1 ? '' : 's'}`;
  }
  return `${n} step${n === 1 ? '' : 's'}`;
}

/**
 * Whether two documents are the same trace: the same bug, both its slice
 * or both its whole execution (their step numbers mean different steps).
 */
export function sameTrace(a: TraceDocument | undefined, b: TraceDocument | undefined): boolean {
  return !!a && !!b && a.uri === b.uri && a.bugId === b.bugId && !!a.allSteps === !!b.allSteps;
}
