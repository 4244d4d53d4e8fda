// Renders the trace view in headless Chromium, the way VS Code shows it,
// and saves screenshots in test-output/ (gitignored) to look at:
//
//   node scripts/render-trace-view.mjs [--chromium /usr/bin/chromium]
//
// The page is the one the extension serves (src/traceView/html.ts, with
// its Content-Security-Policy), the script is src/traceView/webview/main.ts
// bundled as for dist/, the stylesheet media/traceView.css. A stand-in for
// VS Code's webview host defines `acquireVsCodeApi`, the theme's CSS
// variables (a few real values of Dark+, Light+ and High Contrast) and the
// body's theme class, and posts the traces of test/unit/traceFixtures.ts.
// It also checks what the view sends back (ready, reveal on click and
// Enter) and that a long trace keeps few rows in the DOM, and fails if
// not. Every request stays inside the page (no network).
//
// It starts one Chromium (its own process group) and kills that group
// when it ends, however it ends.
import * as esbuild from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'test-output');
const argv = process.argv.slice(2);
const chromiumPath = argv.includes('--chromium') ? argv[argv.indexOf('--chromium') + 1] : '/usr/bin/chromium';
const ORIGIN = 'https://trace-view.test';

// Real values of VS Code's built-in themes (a subset: what the view uses).
const common = {
  '--vscode-font-family': '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-font-weight': 'normal',
  '--vscode-editor-font-family': '"Droid Sans Mono", "monospace", monospace',
  '--vscode-editor-font-size': '14px',
};
const THEMES = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      ...common,
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': 'rgba(204, 204, 204, 0.7)',
      '--vscode-errorForeground': '#f48771',
      '--vscode-focusBorder': '#007fd4',
      '--vscode-editor-background': '#1e1e1e',
      '--vscode-editor-foreground': '#d4d4d4',
      '--vscode-editorWidget-background': '#252526',
      '--vscode-editorWidget-border': '#454545',
      '--vscode-panel-border': 'rgba(128, 128, 128, 0.35)',
      '--vscode-list-activeSelectionBackground': '#04395e',
      '--vscode-list-activeSelectionForeground': '#ffffff',
      '--vscode-list-inactiveSelectionBackground': '#37373d',
      '--vscode-editorLineNumber-foreground': '#858585',
      '--vscode-editorLineNumber-activeForeground': '#c6c6c6',
      '--vscode-editor-stackFrameHighlightBackground': 'rgba(255, 255, 0, 0.2)',
      '--vscode-debugIcon-breakpointCurrentStackframeForeground': '#ffcc00',
      '--vscode-charts-foreground': '#cccccc',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-green': '#89d185',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-charts-red': '#f14c4c',
      '--vscode-charts-yellow': '#cca700',
      '--vscode-charts-orange': '#d18616',
      '--vscode-textBlockQuote-background': 'rgba(127, 127, 127, 0.1)',
      '--vscode-textBlockQuote-border': 'rgba(0, 122, 204, 0.5)',
      '--vscode-textCodeBlock-background': 'rgba(10, 10, 10, 0.4)',
      '--vscode-editorWarning-foreground': '#cca700',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      ...common,
      '--vscode-foreground': '#616161',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-errorForeground': '#a1260d',
      '--vscode-focusBorder': '#0090f1',
      '--vscode-editor-background': '#ffffff',
      '--vscode-editor-foreground': '#000000',
      '--vscode-editorWidget-background': '#f3f3f3',
      '--vscode-editorWidget-border': '#c8c8c8',
      '--vscode-panel-border': 'rgba(128, 128, 128, 0.35)',
      '--vscode-list-activeSelectionBackground': '#0060c0',
      '--vscode-list-activeSelectionForeground': '#ffffff',
      '--vscode-list-inactiveSelectionBackground': '#e4e6f1',
      '--vscode-editorLineNumber-foreground': '#237893',
      '--vscode-editorLineNumber-activeForeground': '#0b216f',
      '--vscode-editor-stackFrameHighlightBackground': 'rgba(255, 255, 102, 0.45)',
      '--vscode-debugIcon-breakpointCurrentStackframeForeground': '#be8700',
      '--vscode-charts-foreground': '#616161',
      '--vscode-charts-blue': '#1a85ff',
      '--vscode-charts-green': '#388a34',
      '--vscode-charts-purple': '#652d90',
      '--vscode-charts-red': '#e51400',
      '--vscode-charts-yellow': '#bf8803',
      '--vscode-charts-orange': '#d18616',
      '--vscode-textBlockQuote-background': 'rgba(127, 127, 127, 0.1)',
      '--vscode-textBlockQuote-border': 'rgba(0, 122, 204, 0.5)',
      '--vscode-textCodeBlock-background': 'rgba(220, 220, 220, 0.4)',
      '--vscode-editorWarning-foreground': '#bf8803',
    },
  },
  hc: {
    bodyClass: 'vscode-high-contrast',
    vars: {
      ...common,
      '--vscode-foreground': '#ffffff',
      '--vscode-descriptionForeground': 'rgba(255, 255, 255, 0.7)',
      '--vscode-errorForeground': '#f48771',
      '--vscode-focusBorder': '#f38518',
      '--vscode-contrastBorder': '#6fc3df',
      '--vscode-contrastActiveBorder': '#f38518',
      '--vscode-editor-background': '#000000',
      '--vscode-editor-foreground': '#ffffff',
      '--vscode-editorWidget-background': '#0c141f',
      '--vscode-editorWidget-border': '#6fc3df',
      '--vscode-panel-border': '#6fc3df',
      '--vscode-editorLineNumber-foreground': '#ffffff',
      '--vscode-editorLineNumber-activeForeground': '#f38518',
      '--vscode-debugIcon-breakpointCurrentStackframeForeground': '#ffcc00',
      '--vscode-charts-foreground': '#ffffff',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-green': '#89d185',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-charts-red': '#f14c4c',
      '--vscode-charts-yellow': '#cca700',
      '--vscode-charts-orange': '#d18616',
      '--vscode-textBlockQuote-border': '#ffffff',
      '--vscode-textCodeBlock-background': '#000000',
      '--vscode-editorWarning-foreground': '#fff500',
    },
  },
};

// Bundle the page, the view's script and the fixtures, as the build does.
const work = mkdtempSync(join(tmpdir(), 'weft-trace-view-'));
const userDataDir = join(work, 'profile');
let browserProc;
let cleanedUp = false;
function cleanup() {
  if (cleanedUp) return;
  cleanedUp = true;
  if (browserProc && browserProc.exitCode === null && browserProc.signalCode === null) {
    try {
      process.kill(-browserProc.pid, 'SIGKILL'); // its process group: the wrapper script and every Chromium process
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
}

async function bundle() {
  const common = { bundle: true, absWorkingDir: root, logLevel: 'warning', write: false };
  const [page, fixtures, script] = await Promise.all([
    esbuild.build({ ...common, entryPoints: ['src/traceView/html.ts'], platform: 'node', format: 'cjs' }),
    esbuild.build({ ...common, entryPoints: ['test/unit/traceFixtures.ts'], platform: 'browser', format: 'iife', globalName: '__weftFixtures' }),
    esbuild.build({ ...common, entryPoints: ['src/traceView/webview/main.ts'], platform: 'browser', format: 'iife', target: 'es2022' }),
  ]);
  const pageFile = join(work, 'html.cjs');
  writeFileSync(pageFile, page.outputFiles[0].text);
  const { traceViewHtml } = createRequire(import.meta.url)(pageFile);
  return { traceViewHtml, fixtures: fixtures.outputFiles[0].text, script: script.outputFiles[0].text };
}

async function startChromium() {
  mkdirSync(userDataDir, { recursive: true });
  browserProc = spawn(
    chromiumPath,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${userDataDir}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const ws = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start in 30 s:\n${err}`)), 30_000);
    browserProc.stderr.on('data', (b) => {
      err += b.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    browserProc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}):\n${err}`));
    });
  });
  browserProc.stderr.resume();
  return chromium.connectOverCDP(ws);
}

const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

async function openView(browser, built, theme, size = { width: 1000, height: 640 }) {
  const context = await browser.newContext({ viewport: size, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const cssErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') cssErrors.push(m.text());
  });
  page.on('pageerror', (e) => cssErrors.push(String(e)));
  const nonce = randomBytes(18).toString('base64');
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== ORIGIN) return route.abort();
    switch (url.pathname) {
      case '/index.html':
        return route.fulfill({
          contentType: 'text/html',
          body: built.traceViewHtml({
            cspSource: ORIGIN,
            scriptUri: `${ORIGIN}/dist/webview.js`,
            styleUri: `${ORIGIN}/media/traceView.css`,
            nonce,
          }),
        });
      case '/dist/webview.js':
        return route.fulfill({ contentType: 'text/javascript', body: built.script });
      case '/media/traceView.css':
        return route.fulfill({ contentType: 'text/css', body: readFileSync(join(root, 'media/traceView.css'), 'utf8') });
      default:
        return route.fulfill({ status: 404, body: '' });
    }
  });
  // The webview host: acquireVsCodeApi, the theme, and the fixtures.
  // (Init scripts run before the page's own and outside its CSP.)
  await page.addInitScript(`${built.fixtures}\n;globalThis.__weftFixtures = __weftFixtures;`);
  await page.addInitScript((t) => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({
      postMessage: (m) => window.__posted.push(m),
      getState: () => undefined,
      setState: () => {},
    });
    const apply = () => {
      for (const [k, v] of Object.entries(t.vars)) document.documentElement.style.setProperty(k, v);
      document.body.classList.add(t.bodyClass);
    };
    if (document.body) apply();
    else document.addEventListener('DOMContentLoaded', apply);
  }, THEMES[theme]);
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  return { context, page, errors: cssErrors };
}

async function postTrace(page, expr) {
  await page.evaluate((src) => {
    const f = window.__weftFixtures;
    // eslint-disable-next-line no-new-func
    const trace = new Function('f', `return ${src};`)(f);
    window.postMessage({ type: 'trace', trace }, '*');
  }, expr);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function frame(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function shot(page, name) {
  const file = join(outDir, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`     wrote ${file}`);
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  const built = await bundle();
  const browser = await startChromium();
  try {
    // The thread pool in every theme: spawn, join and lock-order arrows,
    // the debugger at step 8, the selection two steps below.
    for (const theme of ['dark', 'light', 'hc']) {
      const { context, page, errors } = await openView(browser, built, theme, { width: 1000, height: 800 });
      await postTrace(page, 'f.threadPool()');
      await page.evaluate(() => window.postMessage({ type: 'current', step: 8 }, '*'));
      await frame(page);
      await page.focus('#scroller');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await frame(page);
      await shot(page, `trace-view-pool-${theme}`);
      if (theme === 'dark') {
        const current = await page.$eval('.row.current', (e) => e.getAttribute('aria-posinset'));
        check(current === '8', `current step highlighted (step ${current})`);
        const selected = await page.$eval('#scroller', (s) => document.getElementById(s.getAttribute('aria-activedescendant') ?? '')?.getAttribute('aria-posinset'));
        check(selected === '10', `arrow keys move the selection (at step ${selected})`);
        await page.keyboard.press('Enter');
        const box = await page.$('.row[aria-posinset="4"] .box');
        await box.click();
        const posted = await page.evaluate(() => window.__posted);
        check(
          JSON.stringify(posted) === JSON.stringify([{ type: 'ready' }, { type: 'reveal', step: 10 }, { type: 'reveal', step: 4 }]),
          `ready, Enter and click post ${JSON.stringify(posted)}`,
        );
        // VS Code rewrites the variables when the theme or font changes: the boxes follow.
        const width = () => page.$eval('.row[aria-posinset="4"] .box', (e) => e.getBoundingClientRect().width);
        const before = await width();
        await page.evaluate(() => document.documentElement.style.setProperty('--vscode-editor-font-size', '20px'));
        await frame(page);
        const after = await width();
        check(after > before * 1.2, `a larger editor font re-measures the boxes (${before} → ${after} px)`);
        await page.evaluate(() => window.postMessage({ type: 'current', step: 0 }, '*'));
        await frame(page);
        check((await page.$$('.row.current')).length === 0, 'step 0 clears the debugger’s step');
      }
      check(errors.length === 0, `${theme}: no errors in the page ${JSON.stringify(errors)}`);
      await context.close();
    }

    // The lost update with locks, and the data race, in dark and light.
    for (const theme of ['dark', 'light']) {
      const { context, page, errors } = await openView(browser, built, theme);
      await postTrace(page, 'f.lostUpdateWithLocks()');
      await shot(page, `trace-view-locks-${theme}`);
      await postTrace(page, 'f.dataRace()');
      await shot(page, `trace-view-race-${theme}`);
      check(errors.length === 0, `${theme}: no errors in the page ${JSON.stringify(errors)}`);
      await context.close();
    }

    // An older server's trace: no events.
    {
      const { context, page } = await openView(browser, built, 'dark');
      await postTrace(page, 'f.withoutEvents(f.threadPool())');
      const notes = await page.$eval('#notes', (e) => e.textContent ?? '');
      check(/no event data/.test(notes), 'a trace without events says so');
      check((await page.$$('.edge')).length === 0, 'a trace without events has no arrows');
      await shot(page, 'trace-view-noevents-dark');
      await context.close();
    }

    // Long traces: 10,000 steps (virtualised), then 210,000 (past the cap).
    {
      const { context, page, errors } = await openView(browser, built, 'dark');
      const t0 = Date.now();
      await postTrace(page, 'f.longTrace(10000)');
      const ms = Date.now() - t0;
      const rows = await page.$$eval('.row', (r) => r.length);
      check(rows < 100, `10,000 steps: ${rows} rows in the DOM, drawn in ${ms} ms`);
      await page.evaluate(() => window.postMessage({ type: 'current', step: 5000 }, '*'));
      await frame(page);
      const seen = await page.$$eval('.row.current', (r) => r.length);
      check(seen === 1, 'the debugger’s step 5,000 is scrolled into sight');
      await shot(page, 'trace-view-long-dark');
      const t1 = Date.now();
      await postTrace(page, 'f.longTrace(210000)');
      const ms2 = Date.now() - t1;
      await page.evaluate(() => {
        const s = document.getElementById('scroller');
        s.scrollTop = 1000 * 30 - 200;
      });
      await frame(page);
      const gap = await page.$eval('.gap', (e) => e.textContent ?? '').catch(() => '');
      check(/10,000 steps not drawn/.test(gap), `210,000 steps: the gap row says "${gap}" (drawn in ${ms2} ms)`);
      await shot(page, 'trace-view-gap-dark');
      check(errors.length === 0, `long: no errors in the page ${JSON.stringify(errors)}`);
      await context.close();
    }
  } finally {
    await browser.close().catch(() => {});
    cleanup();
  }
  if (failures.length > 0) {
    console.error(`${failures.length} check(s) failed`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  cleanup();
  process.exitCode = 1;
});
