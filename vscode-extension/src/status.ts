// The status bar's words for a document's check, from the server's
// weft/status notification. Pure: no VS Code API, unit-tested.

import type { WeftStatus } from './protocol';

/** What the status bar item shows. */
export interface StatusView {
  /** The item's text, with codicons ($(name)); the spinner while checking. */
  text: string;
  /** The hover: the status in full sentences. */
  tooltip: string;
  /** Which theme background to use, if any. */
  background?: 'error' | 'warning';
}

/** 12345 → "12,345". */
export function groupDigits(n: number): string {
  return Math.trunc(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function plural(n: number, word: string): string {
  return `${groupDigits(n)} ${word}${n === 1 ? '' : 's'}`;
}

const clickHint = 'Click to show the Weft output.';

/** An assumption as a verdict's qualifier follows "assuming" (the server's words). */
export function assumptionWords(a: string): string {
  switch (a) {
    case 'no-overflow':
      return 'no overflow';
    case 'no-spurious-wakeups':
      return 'no spurious wake-ups';
    case 'no-fingerprint-collision':
      return 'no two distinct states with one fingerprint';
  }
  return a;
}

/** "assuming no overflow and no spurious wake-ups", or "" when the verdict rests on nothing. */
export function assumingWords(assumptions: readonly string[] | undefined): string {
  const words = (assumptions ?? []).map(assumptionWords);
  if (words.length === 0) {
    return '';
  }
  const last = words.pop() as string;
  return `assuming ${words.length ? `${words.join(', ')} and ${last}` : last}`;
}

/** How much a check explored: executions, or the states a stateful check stored. */
function explored(st: WeftStatus): string {
  return st.algorithm === 'stateful' ? plural(st.states ?? 0, 'state') : plural(st.executions, 'execution');
}

/** The status bar's view of a status. It never claims more than the status says. */
export function statusView(st: WeftStatus): StatusView {
  const assuming = assumingWords(st.assumptions);
  const rests = assuming
    ? `The verdict rests on an assumption: ${st.state === 'verified' ? 'verified' : 'complete'}, ${assuming}.`
    : undefined;
  const tooltip = (extra?: string): string =>
    [st.message, ...(st.warnings ?? []), extra, clickHint].filter((s): s is string => !!s).join('\n\n');
  switch (st.state) {
    case 'checking': {
      const soFar = st.bugs > 0 ? `${plural(st.bugs, 'bug')} so far, ` : '';
      if (st.waiting) {
        return { text: `$(watch) Weft: ${soFar}checking soon`, tooltip: tooltip() };
      }
      const count = st.algorithm === 'stateful' ? st.states ?? 0 : st.executions;
      const execs = count > 0 ? ` ${explored(st)}` : '';
      return {
        text: `$(sync~spin) Weft: ${soFar}checking…${execs}`,
        tooltip: tooltip(),
        background: st.bugs > 0 ? 'error' : undefined,
      };
    }
    case 'verified':
      if (!st.complete) {
        // The server never sends this; if it did, the bar must not say "verified".
        return { text: '$(warning) Weft: incomplete', tooltip: tooltip(), background: 'warning' };
      }
      return {
        text: `$(pass) Weft: verified${assuming ? `, ${assuming}` : ''} (${explored(st)}${st.mode === 'stateful' ? ', stateful' : ''})`,
        tooltip: tooltip(rests),
      };
    case 'vacuous':
      return { text: '$(warning) Weft: not verified (nothing checked)', tooltip: tooltip(), background: 'warning' };
    case 'bugs': {
      const rest = st.complete ? '' : st.why ? ` (incomplete: ${st.why})` : ' (incomplete)';
      const found = st.omittedBugs ? `${st.bugs + st.omittedBugs} bugs, ${st.bugs} shown` : plural(st.bugs, 'bug');
      return { text: `$(bug) Weft: ${found}${rest}`, tooltip: tooltip(st.complete ? rests : undefined), background: 'error' };
    }
    case 'incomplete':
      return {
        text: `$(warning) Weft: incomplete${st.why ? ` (${st.why})` : ''}, no bug so far`,
        tooltip: tooltip('No bug was found in what was explored, but the exploration did not finish: this is not a proof.'),
        background: 'warning',
      };
    case 'errors':
      return { text: '$(error) Weft: not checked (the file has errors)', tooltip: tooltip(), background: 'error' };
  }
  return { text: `Weft: ${String(st.state)}`, tooltip: tooltip() };
}
