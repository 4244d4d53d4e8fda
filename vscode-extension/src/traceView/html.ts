// The trace view's page. Pure (no `vscode`): panel.ts fills in the
// webview's URIs, and scripts/render-trace-view.mjs renders the same page
// in a headless browser.
//
// Content-Security-Policy: nothing by default; the stylesheet and images
// from the extension's own files (`cspSource`); the one script by nonce.
// No inline styles or handlers: the script sets positions through the
// CSSOM, which a style-src policy does not govern.

export interface TraceViewPageOptions {
  /** The webview's `cspSource` (the origin of its local resources). */
  cspSource: string;
  /** The URI of dist/webview.js as the webview sees it. */
  scriptUri: string;
  /** The URI of media/traceView.css as the webview sees it. */
  styleUri: string;
  /** A fresh random nonce (base64 or hex, at least 128 bits). */
  nonce: string;
}

export function traceViewHtml(o: TraceViewPageOptions): string {
  const csp = [
    "default-src 'none'",
    `style-src ${o.cspSource}`,
    `img-src ${o.cspSource} data:`,
    `font-src ${o.cspSource}`,
    `script-src 'nonce-${o.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(o.styleUri)}">
<title>Weft trace</title>
</head>
<body>
<header id="top">
  <h1 id="title">Waiting for a trace…</h1>
  <p id="message"></p>
  <div id="notes" role="status"></div>
  <ul id="legend" aria-label="Legend"></ul>
</header>
<main id="scroller" tabindex="0" role="listbox" aria-label="Steps of the counterexample">
  <div id="columns" aria-hidden="true"></div>
  <div id="canvas"></div>
</main>
<footer id="details" aria-live="polite"></footer>
<script nonce="${attr(o.nonce)}" src="${attr(o.scriptUri)}"></script>
</body>
</html>
`;
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
