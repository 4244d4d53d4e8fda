// Choosing which bug a command is about: the one under the cursor, else
// the only one, else the user picks. Pure: unit-tested without VS Code.

import type { BugDiagnosticData, Position, Range } from './protocol';

/** A bug as the extension knows it: from a diagnostic of the server. */
export interface BugRef {
  bugId: string;
  message: string;
  range: Range;
  steps: number;
}

/** Reads a diagnostic's data field: a bug's data, or undefined for other diagnostics. */
export function bugData(data: unknown): BugDiagnosticData | undefined {
  if (typeof data !== 'object' || data === null) {
    return undefined;
  }
  const d = data as Record<string, unknown>;
  if (typeof d.bugId !== 'string' || d.bugId === '') {
    return undefined;
  }
  return {
    bugId: d.bugId,
    version: typeof d.version === 'number' ? d.version : 0,
    steps: typeof d.steps === 'number' ? d.steps : 0,
  };
}

function contains(r: Range, p: Position): boolean {
  const after = (a: Position, b: Position) => a.line > b.line || (a.line === b.line && a.character >= b.character);
  return after(p, r.start) && after(r.end, p);
}

/**
 * The bug a command without arguments is about: the single bug, or the
 * one whose range holds the cursor. undefined means the user must choose
 * (several bugs, none under the cursor) or there is none (bugs empty).
 */
export function bugAt(bugs: readonly BugRef[], cursor: Position | undefined): BugRef | undefined {
  // One diagnostic per bug: a data race has two, with the same id.
  const ids = new Set(bugs.map((b) => b.bugId));
  if (ids.size === 1) {
    return bugs[0];
  }
  if (cursor) {
    return bugs.find((b) => contains(b.range, cursor));
  }
  return undefined;
}

/** The bugs once each (a race's two diagnostics count once), in the order given. */
export function distinctBugs(bugs: readonly BugRef[]): BugRef[] {
  const seen = new Set<string>();
  return bugs.filter((b) => !seen.has(b.bugId) && (seen.add(b.bugId), true));
}
