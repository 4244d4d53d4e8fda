// Helpers that drive VS Code's workbench in a page: the command palette,
// quick open, the Problems panel, the status bar, code lenses, the debug
// toolbar, webviews. Selectors are the workbench's own classes and aria
// labels, which are stable across VS Code releases.

/**
 * Waits until fn() returns a truthy value (polling), or throws msg() on
 * timeout. An error from fn() counts as "not yet", except a CheckFailed.
 */
export async function until(fn, { timeoutMs = 30_000, intervalMs = 50, msg = () => 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      if (err?.name === 'CheckFailed') throw err; // a failed check, not "not yet"
      last = err;
    }
    if (Date.now() > deadline) {
      const why = typeof msg === 'function' ? await msg(last) : msg;
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Waits for the workbench to be ready for input. */
export async function waitForWorkbench(page, timeoutMs = 60_000) {
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ state: 'visible', timeout: timeoutMs });
  await page.locator('.monaco-workbench .part.editor').waitFor({ state: 'visible', timeout: timeoutMs });
  // The explorer lists the workspace once the remote file system answers.
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ state: 'visible', timeout: timeoutMs });
}

async function quickInput(page, key, text) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  for (let attempt = 0; ; attempt++) {
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: 'visible', timeout: 5000 });
      break;
    } catch (err) {
      if (attempt >= 2) throw new Error(`${key} did not open the quick input: ${err.message}`);
    }
  }
  await input.fill(text);
  return input;
}

/** Runs a command by its title through the command palette (F1). */
export async function runCommand(page, title, { timeoutMs = 15_000 } = {}) {
  await quickInput(page, 'F1', `>${title}`);
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: title }).first();
  try {
    await row.waitFor({ state: 'visible', timeout: timeoutMs });
  } catch {
    const rows = await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').allInnerTexts();
    await page.keyboard.press('Escape');
    throw new Error(`command "${title}" is not in the command palette (it lists: ${rows.map((r) => r.replace(/\s+/g, ' ')).join(' | ') || 'nothing'})`);
  }
  await row.click();
}

/** Opens a file of the workspace through quick open (Ctrl+P); returns when the editor shows it. */
export async function openFile(page, name, { onEnter } = {}) {
  await quickInput(page, 'Control+P', name);
  const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: name }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  onEnter?.();
  await page.keyboard.press('Enter');
  await page.locator(`.tabs-container .tab[aria-label^="${name}"]`).first().waitFor({ state: 'visible', timeout: 15_000 });
}

/** The rows of the Problems panel (their text). */
export async function problems(page) {
  return page.locator('.markers-panel .monaco-list-row').allInnerTexts();
}

/** The status bar items' texts. */
export async function statusBarTexts(page) {
  return (await page.locator('.statusbar-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

/** The code lenses shown in the editor: their text, element and vertical position. */
export async function codeLenses(page) {
  const links = page.locator('.monaco-editor .codelens-decoration a');
  const out = [];
  for (let i = 0; i < (await links.count()); i++) {
    const el = links.nth(i);
    const box = await el.boundingBox();
    out.push({ text: (await el.innerText()).trim(), el, y: box ? box.y : -1 });
  }
  return out;
}

/** A debug toolbar button by its aria label's start ("Step Over", "Step Back", …). */
export function debugButton(page, label) {
  return page.locator(`.debug-toolbar .action-item .action-label[aria-label^="${label}"]`).first();
}

/** The text of the Call Stack view, flattened. */
export async function callStackText(page) {
  const t = await page.locator('.debug-call-stack .monaco-list-row').allInnerTexts();
  return t.map((s) => s.replace(/\s+/g, ' ').trim()).join(' | ');
}

/** The frames of the page (the workbench, and each webview's outer and inner frame). */
export function webviewContentFrames(page) {
  // A webview is an iframe (…/webview/browser/pre/index.html) holding the
  // content iframe (#active-frame, fake.html).
  return page.frames().filter((f) => /\/pre\/fake\.html/.test(f.url()));
}

/** The messages of the notification toasts on screen. */
export async function notifications(page) {
  return (await page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts()).map((t) => t.trim());
}

/** The text of the Variables view, flattened. */
export async function variablesText(page) {
  const t = await page.locator('.debug-variables .monaco-list-row').allInnerTexts();
  return t.map((s) => s.replace(/\s+/g, ' ').trim()).join(' | ');
}
