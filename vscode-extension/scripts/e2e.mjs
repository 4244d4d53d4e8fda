// The end-to-end test of the extension in a real VS Code: code-server
// 4.100.3 (VS Code 1.100.3) driven through Debian's Chromium by
// playwright-core. It builds and installs the .vsix, opens a copy of
// examples/lost_update.weft, and checks, as a user would see it:
//   - the assertion's diagnostic in the Problems panel, with its message,
//     and a squiggle in the editor;
//   - the status bar's bug state;
//   - the "Replay: …" code lens of the assertion; clicking it starts a debug
//     session stopped at step 1; Step Over goes to step 2; Step Back to 1;
//   - the trace view shows one column per thread;
//   - a model verified only assuming no overflow (weft.assumeNoOverflow,
//     escalation off) says so in the status bar, its tooltip and the lens.
// It prints the figures (time from opening the file to the diagnostic in
// the Problems panel, the extension's activation and server start times
// from its "Weft" output channel, the .vsix size) and saves a screenshot
// of each stage in vscode-extension/test-output/e2e/.
//
// Usage: node scripts/e2e.mjs (npm run test:e2e). Installs what it needs
// (apt-get: chromium chromium-driver ripgrep libkrb5-dev; code-server into
// $XDG_CACHE_HOME/weft-e2e, reused). Environment:
//   WEFT_E2E_TIMEOUT_MS  the whole test's limit (default 300000)
//   WEFT_E2E_CACHE       the cache directory
//   WEFT_E2E_KEEP=1      keep the temporary directory (logs, profile)
// Exits 0 when every check passed, 1 otherwise (the failing check, what
// was seen, and a screenshot 99-failure.png). It ends every process it
// started, by PID, whole trees, also on failure, timeout and SIGINT.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { Procs } from './e2e/procs.mjs';
import { cacheDir, CODE_SERVER_VERSION, ensureCodeServer, ensureSystemPackages } from './e2e/setup.mjs';
import {
  callStackText, codeLenses, debugButton, notifications, openFile, variablesText, problems, runCommand, statusBarTexts, until,
  waitForWorkbench, webviewContentFrames,
} from './e2e/workbench.mjs';

const ext = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(ext, '..');
const outDir = join(ext, 'test-output', 'e2e'); // other scripts write beside it

// The model and what the test expects of it (see the file's header).
const MODEL = 'lost_update.weft';
const EXPECT_MESSAGE = 'an increment was lost';
const EXPECT_BUGS = 2; // the data race and the assertion
const EXPECT_THREADS = ['incr[0]', 'incr[1]', 'main'];

// Three atomic adds that overflow in one order: cdpor, assuming no
// overflow, merges them into one execution. The settings below turn the
// assumption on and escalation off, so the verdict stays "verified,
// assuming no overflow" (escalating, the server would go on without the
// assumption and find the overflows).
const ASSUMED_MODEL = 'overflow.weft';
const ASSUMED_SOURCE = `var c int

thread a {
    atomic { c = c + 9223372036854775807 }
}

thread b {
    atomic { c = c - 1 }
}

thread d {
    atomic { c = c + 1 }
}
`;

const TIMEOUT_MS = Number(process.env.WEFT_E2E_TIMEOUT_MS || 300_000);
const t0 = Date.now();
const procs = new Procs();
const figures = {};
let stageName = 'start';
let page;
let context;
let tmp;
let shots = 0;
let tOpen = 0; // when the file was opened (Enter in quick open)

function log(msg) {
  console.log(`e2e [${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${msg}`);
}

function stage(name) {
  stageName = name;
  log(`— ${name}`);
}

class CheckFailed extends Error {
  name = 'CheckFailed';
}

function check(cond, msg) {
  if (!cond) throw new CheckFailed(msg);
}

async function screenshot(name) {
  if (!page) return;
  shots++;
  const file = join(outDir, `${String(shots).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, timeout: 10_000 });
  log(`screenshot ${file}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

let cleaning;
async function cleanup() {
  if (cleaning) return cleaning;
  cleaning = (async () => {
    try {
      await context?.close().catch(() => undefined);
    } catch {
      // the browser may be gone
    }
    let ok = true;
    const n = await procs.killAll().catch((err) => {
      console.error(`e2e: FAILED to end its processes: ${err.message}`);
      ok = false;
      return 0;
    });
    log(`ended ${n} process${n === 1 ? '' : 'es'} left by the test`);
    if (tmp && process.env.WEFT_E2E_KEEP !== '1') {
      rmSync(tmp, { recursive: true, force: true });
    } else if (tmp) {
      log(`kept ${tmp}`);
    }
    return ok;
  })();
  return cleaning;
}

let failing = false;
async function fail(message) {
  if (failing) return; // the first failure (or the timeout) is the one to report
  failing = true;
  console.error(`\ne2e: FAILED at "${stageName}": ${message}\n`);
  for (const x of failures) console.error(`e2e: (also failed earlier, at "${x.stage}": ${x.message.split('\n')[0]})`);
  try {
    await screenshot('failure');
  } catch {
    // no page to show
  }
  copyLogs();
  await cleanup();
  process.exit(1);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    if (failing) return;
    failing = true; // what fails from here on is the interruption's doing
    console.error(`\ne2e: ${sig}: stopping at "${stageName}"`);
    cleanup().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  });
}
const globalTimer = setTimeout(() => {
  void fail(`the test did not finish within ${TIMEOUT_MS / 1000} s (WEFT_E2E_TIMEOUT_MS)`);
}, TIMEOUT_MS);

// Files under dir (recursively) whose name matches re.
function findFiles(dir, re, out = []) {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) findFiles(p, re, out);
    else if (re.test(e.name)) out.push(p);
  }
  return out;
}

let dirs;
/** The extension's "Weft" output channel, as VS Code logs it to disk. */
function weftOutput() {
  if (!dirs) return '';
  const files = findFiles(join(dirs.user, 'logs'), /Weft\.log$/);
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
}

function copyLogs() {
  if (!dirs) return;
  try {
    const out = weftOutput();
    if (out) writeFileSync(join(outDir, 'weft-output.log'), out);
    for (const f of findFiles(join(dirs.user, 'logs'), /^(exthost|remoteexthost|remoteagent)\.log$/)) {
      copyFileSync(f, join(outDir, `code-server-${f.split('/').slice(-1)[0]}`));
    }
  } catch (err) {
    log(`copying the logs: ${err.message}`);
  }
}

async function main() {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  stage('install what the test needs');
  const apt = await ensureSystemPackages(procs, log);
  if (apt.installed.length) log(`apt-get installed ${apt.installed.join(' ')}`);
  const cs = await ensureCodeServer(procs, log);
  log(`code-server ${CODE_SERVER_VERSION}: ${cs.installed ? `installed in ${cs.seconds.toFixed(1)} s` : 'from the cache'} (${cs.dir})`);
  figures.codeServerInstallSeconds = cs.installed ? cs.seconds : 0;

  tmp = mkdtempSync(join(tmpdir(), 'weft-e2e-'));
  dirs = {
    vsix: join(tmp, 'weft.vsix'),
    config: join(tmp, 'config.yaml'),
    user: join(tmp, 'user-data'),
    ext: join(tmp, 'extensions'),
    xdgData: join(tmp, 'xdg-data'),
    xdgConfig: join(tmp, 'xdg-config'),
    xdgCache: join(tmp, 'xdg-cache'),
    runtime: join(tmp, 'xdg-runtime'),
    tmp: join(tmp, 'tmp'),
    workspace: join(tmp, 'workspace'),
    chrome: join(tmp, 'chromium-profile'),
  };
  for (const d of Object.values(dirs)) if (!/\.(vsix|yaml)$/.test(d)) mkdirSync(d, { recursive: true, mode: 0o700 });

  stage('package the extension');
  const tPack = Date.now();
  const pack = await procs.run(process.execPath, [join(ext, 'scripts', 'package.mjs'), '--out', dirs.vsix], { cwd: ext, timeoutMs: 300_000 });
  if (pack.code !== 0) throw new CheckFailed(`scripts/package.mjs failed:\n${pack.out.slice(-4000)}`);
  figures.vsixBytes = statSync(dirs.vsix).size;
  figures.packageSeconds = (Date.now() - tPack) / 1000;
  log(`.vsix ${figures.vsixBytes} bytes (${(figures.vsixBytes / 1048576).toFixed(2)} MiB), built in ${figures.packageSeconds.toFixed(1)} s`);

  stage('install the .vsix into code-server');
  const port = await freePort();
  writeFileSync(dirs.config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  mkdirSync(join(dirs.user, 'User'), { recursive: true });
  writeFileSync(join(dirs.user, 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.colorTheme': 'Default Dark Modern',
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'chat.commandCenter.enabled': false,
    'git.enabled': false,
    'editor.codeLens': true,
    'editor.minimap.enabled': false,
    'weft.assumeNoOverflow': true,
    'weft.escalate': false,
  }, null, 2));
  copyFileSync(join(repo, 'examples', MODEL), join(dirs.workspace, MODEL));
  writeFileSync(join(dirs.workspace, ASSUMED_MODEL), ASSUMED_SOURCE);
  const csEnv = {
    ...process.env,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_CACHE_HOME: dirs.xdgCache,
    XDG_RUNTIME_DIR: dirs.runtime,
    TMPDIR: dirs.tmp,
  };
  delete csEnv.PASSWORD;
  delete csEnv.HASHED_PASSWORD;
  const csArgs = ['--config', dirs.config, '--user-data-dir', dirs.user, '--extensions-dir', dirs.ext];
  const inst = await procs.run(process.execPath, [cs.entry, ...csArgs, '--install-extension', dirs.vsix], { env: csEnv, timeoutMs: 120_000 });
  check(inst.code === 0 && /successfully installed/i.test(inst.out), `code-server --install-extension failed:\n${inst.out}`);
  const installedDir = readdirSync(dirs.ext).find((d) => d.startsWith('weft.weft-'));
  check(installedDir, `no weft.weft-* in ${dirs.ext} after --install-extension: ${readdirSync(dirs.ext).join(', ')}`);
  const serverBin = join(dirs.ext, installedDir, 'bin', 'weft');
  check(existsSync(serverBin), `the installed extension has no bin/weft (${serverBin})`);
  const mode = statSync(serverBin).mode & 0o777;
  figures.installedServerMode = mode.toString(8);
  check((mode & 0o111) !== 0, `the installed bin/weft is not executable (mode ${mode.toString(8)}): the executable bit did not survive packaging and installation`);
  log(`installed ${installedDir}; bin/weft mode ${mode.toString(8)}`);

  // A report saved by the CLI and a launch configuration that replays it
  // (the "replay of a saved report" group below).
  const saved = await procs.run('/bin/sh', ['-c', `"$0" check --json "$1" > report.json`, serverBin, MODEL], { cwd: dirs.workspace, timeoutMs: 60_000 });
  check(saved.code === 1, `weft check --json ${MODEL} should exit 1 (bugs found), not ${saved.code}:\n${saved.out}`);
  const report = JSON.parse(readFileSync(join(dirs.workspace, 'report.json'), 'utf8'));
  const reportBug = 1 + report.bugs.findIndex((b) => b.message === EXPECT_MESSAGE);
  check(reportBug > 0, `the saved report has no bug "${EXPECT_MESSAGE}": ${JSON.stringify(report.bugs.map((b) => b.message))}`);
  mkdirSync(join(dirs.workspace, '.vscode'));
  writeFileSync(join(dirs.workspace, '.vscode', 'launch.json'), JSON.stringify({
    version: '0.2.0',
    configurations: [{ type: 'weft', request: 'launch', name: 'Replay the saved report', traceFile: '${workspaceFolder}/report.json', bug: reportBug }],
  }, null, 2));

  stage('start code-server');
  const csLog = join(outDir, 'code-server.log');
  const server = procs.spawn(process.execPath, [
    cs.entry, ...csArgs, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    '--ignore-last-opened', dirs.workspace,
  ], { env: csEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let csOut = '';
  const take = (d) => {
    csOut += d;
    writeFileSync(csLog, csOut);
  };
  server.stdout.on('data', take);
  server.stderr.on('data', take);
  let exited;
  server.on('exit', (code, signal) => {
    exited = `${signal ?? `exit ${code}`}`;
  });
  const base = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (exited) throw new CheckFailed(`code-server ended (${exited}):\n${csOut.slice(-3000)}`);
    const r = await fetch(`${base}/healthz`).catch(() => undefined);
    return r?.ok;
  }, { timeoutMs: 60_000, intervalMs: 200, msg: () => `code-server to answer on ${base}/healthz (log:\n${csOut.slice(-2000)})` });
  log(`code-server up on ${base} (pid ${server.pid})`);

  stage('open the workbench in Chromium');
  context = await chromium.launchPersistentContext(dirs.chrome, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 900 },
    // Our handlers end everything (code-server too), not playwright's.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    env: { ...process.env, XDG_CONFIG_HOME: dirs.xdgConfig, XDG_CACHE_HOME: dirs.xdgCache, TMPDIR: dirs.tmp },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (err) => log(`page error: ${err.message}`));
  const tGoto = Date.now();
  await page.goto(`${base}/?folder=${encodeURIComponent(dirs.workspace)}`, { timeout: 60_000 });
  await waitForWorkbench(page);
  figures.workbenchMs = Date.now() - tGoto;
  log(`workbench ready in ${figures.workbenchMs} ms`);
  await screenshot('workbench');

  stage('open the Problems panel');
  await runCommand(page, 'View: Focus Problems');
  await page.locator('.markers-panel').first().waitFor({ state: 'visible', timeout: 15_000 });

  stage(`open ${MODEL}`);
  tOpen = 0;
  await openFile(page, MODEL, { onEnter: () => { tOpen = Date.now(); } });
  log(`${MODEL} is open`);

  stage('the diagnostic in the Problems panel');
  const row = await until(async () => {
    const rows = await problems(page);
    // The diagnostic's own row (its related steps quote the message too,
    // and the list's DOM order is not the order on screen).
    return rows.find((r) => r.includes(EXPECT_MESSAGE) && /counterexample: \d+ steps?/.test(r));
  }, {
    timeoutMs: 60_000,
    intervalMs: 25,
    msg: async () => `a problem "${EXPECT_MESSAGE}" in the Problems panel (it shows: ${JSON.stringify(await problems(page).catch(() => []))}; Weft output:\n${weftOutput()})`,
  });
  figures.openToProblemMs = Date.now() - tOpen;
  log(`Problems panel: "${row.replace(/\s+/g, ' ')}" ${figures.openToProblemMs} ms after opening the file`);
  // The squiggle under the failing assert (an error) and under the race (a warning).
  await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'visible', timeout: 10_000 })
    .catch(() => { throw new CheckFailed('no error squiggle in the editor'); });
  await screenshot('file-open-squiggle');
  const rows = await problems(page);
  check(rows.some((r) => r.includes(EXPECT_MESSAGE)), `the Problems panel lost the assertion: ${JSON.stringify(rows)}`);
  check(rows.some((r) => r.includes('data race on c')), `the Problems panel has no data race on c: ${JSON.stringify(rows)}`);
  await screenshot('problems-panel');

  stage('the status bar shows the bug state');
  const want = new RegExp(`^Weft: ${EXPECT_BUGS} bugs$`);
  const st = await until(async () => (await statusBarTexts(page)).find((t) => want.test(t)), {
    timeoutMs: 30_000,
    msg: async () => `a status bar item "Weft: ${EXPECT_BUGS} bugs" (the status bar shows: ${JSON.stringify(await statusBarTexts(page))})`,
  });
  const stItem = page.locator('.statusbar-item').filter({ hasText: st }).first();
  check(await stItem.locator('.codicon-bug').count() > 0, 'the Weft status bar item has no bug icon');
  log(`status bar: "${st}"`);
  await screenshot('status-bar');
  await stItem.screenshot({ path: join(outDir, `${String(shots).padStart(2, '0')}-status-bar-item.png`) });

  stage('the Replay lens');
  const lenses = await until(async () => {
    const ls = (await codeLenses(page)).filter((l) => l.text.startsWith('Replay: '));
    return ls.length >= EXPECT_BUGS ? ls : undefined;
  }, { timeoutMs: 20_000, msg: async () => `${EXPECT_BUGS} "Replay: …" lenses (the editor shows: ${JSON.stringify((await codeLenses(page)).map((l) => l.text))})` });
  // The assertion is the last bug of the file: its lens is the lowest.
  lenses.sort((a, b) => a.y - b.y);
  const lens = lenses[lenses.length - 1];
  const lensSteps = Number(/\((\d+) steps?\)/.exec(lens.text)?.[1]);
  const problemSteps = Number(/counterexample: (\d+) steps?/.exec(row)?.[1]);
  check(lensSteps === problemSteps, `the lowest lens "${lens.text}" should be the assertion's, whose diagnostic says ${problemSteps} steps ("${row}")`);
  log(`lenses: ${lenses.map((l) => `"${l.text}"`).join(', ')}; clicking "${lens.text}"`);
  await screenshot('code-lenses');

  // From here the groups are independent: a failure is recorded and the
  // next group still runs, so one broken feature does not hide the others.
  let replaying = false;
  await group('replay in the debugger', async () => {
    stage('replay: the debug session stops at step 1');
    await lens.el.click();
    await debugButton(page, 'Step Over').waitFor({ state: 'visible', timeout: 30_000 })
      .catch(async () => { throw new CheckFailed(`no debug session (no debug toolbar with Step Over) within 30 s of clicking "${lens.text}"; notifications: ${JSON.stringify(await notifications(page))}; Weft output:\n${weftOutput()}`); });
    replaying = true;
    // The stopped thread says where the replay stands: "Paused on step 1 of 8".
    const stepOf = async () => {
      const text = await callStackText(page);
      const m = /\bstep (\d+) of (\d+)\b/i.exec(text);
      if (!m) return undefined;
      check(Number(m[2]) === lensSteps, `the Call Stack says "${m[0]}", but the lens promised ${lensSteps} steps`);
      return Number(m[1]);
    };
    const waitStep = async (n, what) => {
      await until(async () => (await stepOf()) === n, {
        timeoutMs: 20_000,
        msg: async () => `the replay to stand at step ${n} ${what} (the Call Stack shows: "${await callStackText(page)}")`,
      });
      // The editor marks the statement of the current step.
      await page.locator('.monaco-editor .debug-top-stack-frame-line').first().waitFor({ state: 'visible', timeout: 10_000 })
        .catch(() => { throw new CheckFailed(`at step ${n} the editor shows no current-statement decoration`); });
    };
    await waitStep(1, 'when the session starts');
    // The state after step 1 (incr[0] read c → 0) is in the Variables view.
    await until(async () => {
      const vars = await variablesText(page);
      return vars.includes('Shared') && vars.includes('c = 0');
    }, { timeoutMs: 10_000, msg: async () => `the Variables view to show the scope Shared with c = 0 (it shows: "${await variablesText(page)}")` });
    await screenshot('debug-step-1');

    stage('Step Over goes to step 2');
    await debugButton(page, 'Step Over').click();
    await waitStep(2, 'after Step Over');
    await screenshot('debug-step-2');

    stage('Step Back returns to step 1');
    const back = debugButton(page, 'Step Back');
    check(await back.count() > 0, 'the debug toolbar has no Step Back button (supportsStepBack)');
    await back.click();
    await waitStep(1, 'after Step Back');
    await screenshot('debug-step-back');
  });

  await group('trace view', async () => {
    stage('the trace view shows one column per thread');
    await runCommand(page, 'Weft: Show trace');
    if (!replaying) {
      // Without a replay the command shows the bug under the cursor, or asks which.
      const pick = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: EXPECT_MESSAGE }).first();
      await pick.waitFor({ state: 'visible', timeout: 10_000 })
        .catch(() => { throw new CheckFailed(`Weft: Show trace (no replay running) offered no bug "${EXPECT_MESSAGE}" to pick`); });
      await pick.click();
    }
    const frame = await until(async () => {
      for (const f of webviewContentFrames(page)) {
        if ((await f.locator('#columns').count().catch(() => 0)) > 0) return f;
      }
      return undefined;
    }, { timeoutMs: 20_000, msg: () => `the trace view's webview (frames: ${page.frames().map((f) => f.url()).join(', ')})` });
    const headers = await until(async () => {
      // The column headers: one .thread per thread, in #columns.
      const hs = (await frame.locator('#columns .thread').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
      return hs.length ? hs : undefined;
    }, { timeoutMs: 10_000, msg: async () => `thread columns in the trace view (its text: ${(await frame.locator('body').innerText()).slice(0, 500)})` });
    log(`trace view columns: ${JSON.stringify(headers)}`);
    check(JSON.stringify(headers) === JSON.stringify(EXPECT_THREADS),
      `the trace view's columns are ${JSON.stringify(headers)}, not one per thread ${JSON.stringify(EXPECT_THREADS)}`);
    // The bundled server and the view must speak the same trace document.
    const notes = (await frame.locator('#notes').innerText().catch(() => '')).trim();
    check(!/older than this view/.test(notes), `the trace view says: "${notes}"`);
    const title = (await frame.locator('#title').innerText()).trim();
    log(`trace view title: "${title}"`);
    check(title.includes(`${EXPECT_THREADS.length} threads`), `the trace view's title "${title}" does not say ${EXPECT_THREADS.length} threads`);
    if (replaying) {
      // It follows the debugger, which stands at step 1.
      const cur = await until(async () => (await frame.locator('.row.current .num').allInnerTexts()).join(','), {
        timeoutMs: 10_000, msg: 'the trace view to mark the debugger\'s step (.row.current)',
      });
      check(cur === '1', `the trace view marks step ${cur} as the debugger's, not 1`);
    }
    await screenshot('trace-view');
    await page.locator('iframe.webview').last().screenshot({ path: join(outDir, `${String(shots).padStart(2, '0')}-trace-view-panel.png`) })
      .catch((err) => log(`no screenshot of the trace view panel: ${err.message}`));
    const scroll = await frame.locator('#scroller').evaluate((e) => `scrollLeft ${e.scrollLeft} of ${e.scrollWidth - e.clientWidth}, ${e.clientWidth}px wide`).catch(() => '?');
    log(`trace view scroller: ${scroll}`);
  });

  await group('replay of a saved report (launch.json)', async () => {
    stage('a launch configuration replays a report saved by weft check --json');
    if (replaying) {
      await runCommand(page, 'Debug: Stop');
      await debugButton(page, 'Step Over').waitFor({ state: 'hidden', timeout: 15_000 })
        .catch(() => { throw new CheckFailed('the lens replay did not stop on "Debug: Stop"'); });
    }
    await runCommand(page, 'Debug: Start Debugging');
    await debugButton(page, 'Step Over').waitFor({ state: 'visible', timeout: 30_000 })
      .catch(async () => { throw new CheckFailed(`no debug session within 30 s of "Debug: Start Debugging" with launch.json's traceFile; notifications: ${JSON.stringify(await notifications(page))}`); });
    const first = await until(async () => /\bstep 1 of (\d+)\b/i.exec(await callStackText(page))?.[1], {
      timeoutMs: 20_000, msg: async () => `the saved report's replay to stand at step 1 (the Call Stack shows: "${await callStackText(page)}")`,
    });
    log(`saved report replay: step 1 of ${first}`);
    await screenshot('report-replay-step-1');
    // Continue runs to the last step, which stops on the bug: VS Code's exception widget shows its message.
    await debugButton(page, 'Continue').click();
    const widget = page.locator('.exception-widget').first();
    await widget.waitFor({ state: 'visible', timeout: 15_000 })
      .catch(async () => { throw new CheckFailed(`Continue did not stop on the bug with an exception (the Call Stack shows: "${await callStackText(page)}")`); });
    const text = (await widget.innerText()).replace(/\s+/g, ' ').trim();
    log(`exception widget: "${text}"`);
    check(text.includes(EXPECT_MESSAGE), `the exception widget says "${text}", not the bug's message "${EXPECT_MESSAGE}"`);
    await screenshot('report-replay-exception');
  });

  await group('a verdict under an assumption', async () => {
    stage(`${ASSUMED_MODEL}: verified, assuming no overflow`);
    if (!existsSync('/usr/bin/z3') && !process.env.PATH.split(':').some((d) => existsSync(join(d, 'z3')))) {
      log(`SKIPPED: no z3 on this machine, and the no-overflow conditions of ${ASSUMED_MODEL} come from z3`);
      return;
    }
    if (replaying) {
      await runCommand(page, 'Debug: Stop').catch(() => undefined);
    }
    await openFile(page, ASSUMED_MODEL);
    const want = /^Weft: verified, assuming no overflow \(1 execution\)$/;
    const text = await until(async () => (await statusBarTexts(page)).find((t) => want.test(t)), {
      timeoutMs: 30_000,
      msg: async () => `a status bar item "Weft: verified, assuming no overflow (1 execution)" (the status bar shows: ${JSON.stringify(await statusBarTexts(page))})`,
    });
    log(`status bar: "${text}"`);
    // The lens follows within a second when the test runs alone; in two
    // full CI runs of 28 Nov 2026 it came more than 20 s after the status
    // bar (not understood yet: issue 30). The lag is printed, so that it
    // stays visible; the check is what the lens says.
    const tStatus = Date.now();
    const lens = await until(async () => (await codeLenses(page)).find((l) => l.text.startsWith('✓ Verified')), {
      timeoutMs: 60_000, msg: async () => `the status lens (the editor shows: ${JSON.stringify((await codeLenses(page)).map((l) => l.text))})`,
    });
    figures.lensLagMs = Date.now() - tStatus;
    check(lens.text.startsWith('✓ Verified, assuming no overflow: 1 execution, cdpor'), `the status lens says "${lens.text}", not that it assumed no overflow`);
    log(`lens: "${lens.text}", ${figures.lensLagMs} ms after the status bar`);
    // The tooltip: hover the item.
    await page.locator('.statusbar-item').filter({ hasText: text }).first().hover();
    const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'assuming no overflow' }).first();
    await hover.waitFor({ state: 'visible', timeout: 10_000 })
      .catch(() => { throw new CheckFailed('the status bar item\'s tooltip does not say "assuming no overflow"'); });
    log(`tooltip: "${(await hover.innerText()).replace(/\s+/g, ' ').trim().slice(0, 200)}"`);
    await screenshot('verified-assuming');
    await page.mouse.move(0, 0);
  });

  await group('activation time', async () => {
    stage('activation time from the Weft output channel');
    const output = weftOutput();
    const act = /Weft: activated in (\d+) ms/.exec(output);
    const started = /Weft: server started in (\d+) ms: (.*)/.exec(output);
    check(act, `the Weft output channel has no "Weft: activated in N ms" line:\n${output}`);
    check(started, `the Weft output channel has no "Weft: server started in N ms: PATH" line:\n${output}`);
    figures.activationMs = Number(act[1]);
    figures.serverStartMs = Number(started[1]);
    // When the extension host activated the extension, from its log.
    const hostLog = findFiles(join(dirs.user, 'logs'), /^(remote)?exthost\.log$/).map((f) => readFileSync(f, 'utf8')).join('\n');
    const activated = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) \[info\] ExtensionService#_doActivateExtension weft\.weft\b.*activationEvent: '([^']*)'/m.exec(hostLog);
    check(activated, `the extension host's log does not say it activated weft.weft`);
    check(activated[3] === 'onLanguage:weft', `weft.weft was activated by ${activated[3]}, not by opening a .weft file (onLanguage:weft)`);
    figures.openToActivationMs = new Date(`${activated[1]}T${activated[2]}`).getTime() - tOpen;
    check(started[2].trim() === serverBin, `the server started is ${started[2].trim()}, not the bundled ${serverBin}`);
  });
}

// A failed check or a timeout is told by its message; a bug of this script by its stack.
function describe(err) {
  if (err instanceof TypeError || err instanceof ReferenceError || err instanceof SyntaxError) return err.stack;
  return err?.message ?? String(err);
}

const failures = [];
async function group(name, fn) {
  if (failing) return; // a timeout or a signal is ending the test
  try {
    await fn();
  } catch (err) {
    if (failing) return; // the browser closing under it: not this group's failure
    const message = describe(err);
    failures.push({ stage: stageName, message });
    console.error(`\ne2e: FAILED at "${stageName}": ${message}\n`);
    await screenshot(`failure-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
    await page?.keyboard.press('Escape').catch(() => undefined);
  }
}

function printFigures() {
  const f = (v, unit = 'ms') => (v === undefined ? 'not measured' : `${v} ${unit}`);
  console.log(`  opening ${MODEL} → the diagnostic in the Problems panel: ${f(figures.openToProblemMs)}`);
  console.log(`  the status lens after the status bar (overflow.weft): ${f(figures.lensLagMs)}`);
  console.log(`  extension activation (Weft output): ${f(figures.activationMs)}; server started in ${f(figures.serverStartMs)}; the host activated it ${f(figures.openToActivationMs)} after the file was opened (its log)`);
  if (figures.vsixBytes) console.log(`  .vsix: ${figures.vsixBytes} bytes (${(figures.vsixBytes / 1048576).toFixed(2)} MiB); installed bin/weft mode ${figures.installedServerMode}`);
  console.log(`  workbench load: ${f(figures.workbenchMs)}; packaging: ${f(figures.packageSeconds?.toFixed(1), 's')}; code-server install: ${figures.codeServerInstallSeconds ? `${figures.codeServerInstallSeconds.toFixed(1)} s` : 'cached'} (${cacheDir()})`);
  console.log(`  total: ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${outDir}`);
}

try {
  await main();
} catch (err) {
  await fail(describe(err));
}
if (failing) {
  // A timeout or a signal is ending the test; that path exits.
  setInterval(() => undefined, 1000);
  await new Promise(() => undefined);
}
copyLogs();
clearTimeout(globalTimer);
if (failures.length) {
  console.error(`\ne2e: FAILED: ${failures.length} check${failures.length === 1 ? '' : 's'}:`);
  for (const x of failures) console.error(`  - at "${x.stage}": ${x.message.split('\n')[0]}`);
  printFigures();
  await cleanup();
  process.exit(1);
}
console.log('\ne2e: PASSED');
printFigures();
process.exit((await cleanup()) ? 0 : 1);
