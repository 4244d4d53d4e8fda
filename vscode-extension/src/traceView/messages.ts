// The messages between the trace view's webview and the extension. Pure:
// imported by both sides (panel.ts in the extension host, webview/main.ts
// in the browser).

import type { TraceDocument } from '../protocol';

/** Extension → webview. */
export type ToWebview =
  /** Draw this counterexample (replaces the one shown). */
  | { type: 'trace'; trace: TraceDocument }
  /** The debugger is at this 1-based step (0: before the first step): highlight it and scroll to it. */
  | { type: 'current'; step: number };

/** Webview → extension. */
export type FromWebview =
  /** The script has loaded and listens: send the trace. */
  | { type: 'ready' }
  /** The user chose this 1-based step (click, Enter): show its source and move the replay there. */
  | { type: 'reveal'; step: number };

/** Checks a message from the webview; undefined for anything else. */
export function parseFromWebview(msg: unknown): FromWebview | undefined {
  if (typeof msg !== 'object' || msg === null) return undefined;
  const m = msg as { type?: unknown; step?: unknown };
  if (m.type === 'ready') return { type: 'ready' };
  if (m.type === 'reveal' && typeof m.step === 'number' && Number.isInteger(m.step) && m.step >= 1) {
    return { type: 'reveal', step: m.step };
  }
  return undefined;
}

/** Checks a message from the extension; undefined for anything else. */
export function parseToWebview(msg: unknown): ToWebview | undefined {
  if (typeof msg !== 'object' || msg === null) return undefined;
  const m = msg as { type?: unknown; step?: unknown; trace?: unknown };
  if (m.type === 'current' && typeof m.step === 'number' && Number.isInteger(m.step) && m.step >= 0) {
    return { type: 'current', step: m.step };
  }
  if (m.type === 'trace' && typeof m.trace === 'object' && m.trace !== null) {
    const t = m.trace as { steps?: unknown; threads?: unknown };
    if (Array.isArray(t.steps) && Array.isArray(t.threads)) return { type: 'trace', trace: m.trace as TraceDocument };
  }
  return undefined;
}
