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

/** The status bar's view of a status. It never claims more than the status says. */
export function statusView(st: WeftStatus): StatusView {
  const tooltip = (extra?: string): string =>
    [st.message, ...(st.warnings ?? []), extra, clickHint].filter((s): s is string => !!s).join('\n\n');
  switch (st.state) {
    case 'checking': {
      const soFar = st.bugs > 0 ? `${plural(st.bugs, 'bug')} so far, ` : '';
      if (st.waiting) {
        return { text: `$(watch) Weft: ${soFar}checking soon`, tooltip: tooltip() };
      }
      const execs = st.executions > 0 ? ` ${plural(st.executions, 'execution')}` : '';
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
      return { text: `$(pass) Weft: verified (${plural(st.executions, 'execution')})`, tooltip: tooltip() };
    case 'vacuous':
      return { text: '$(warning) Weft: not verified (nothing checked)', tooltip: tooltip(), background: 'warning' };
    case 'bugs': {
      const rest = st.complete ? '' : st.why ? ` (incomplete: ${st.why})` : ' (incomplete)';
      return { text: `$(bug) Weft: ${plural(st.bugs, 'bug')}${rest}`, tooltip: tooltip(), background: 'error' };
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
