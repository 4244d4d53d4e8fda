// The experimental client capabilities through which the extension opts
// in to what the server sends only to clients that ask (docs/editors.md,
// "Opting in"). Pure: no VS Code API, unit-tested.

/**
 * weftStatus: the client handles the custom notification weft/status
 * (the status bar). weftReplay: the client replays the counterexample
 * weft.replay answers itself (in the debugger), so the server need not
 * write it as text and ask the client to show it.
 */
export const weftExperimental: Readonly<Record<string, boolean>> = { weftStatus: true, weftReplay: true };

/** Adds Weft's opt-ins to a client's capabilities, keeping any other experimental ones. */
export function fillWeftExperimental(caps: { experimental?: unknown }): void {
  const cur = caps.experimental;
  const base = cur !== null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>) : {};
  caps.experimental = { ...base, ...weftExperimental };
}
