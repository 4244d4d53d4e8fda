// Finding the `weft` program: the weft.serverPath setting, else the
// binary shipped inside the extension (Linux x64), else `weft` on PATH.
// Pure: the file system is reached through the Probe passed in, so the
// rules are unit-tested without VS Code.

import * as path from 'node:path';

/** Where a server path came from. */
export type ServerSource = 'setting' | 'bundled' | 'PATH';

/** What resolveServer needs to know about the machine. */
export interface Probe {
  /** The weft.serverPath setting ("" when unset). */
  configured: string;
  /** The extension's install directory. */
  extensionPath: string;
  /** process.platform and process.arch. */
  platform: string;
  arch: string;
  /** The PATH environment variable. */
  envPath: string;
  /** The user's home directory, for a setting that starts with ~. */
  home: string;
  /** Whether the file exists (and is a file). */
  isFile(p: string): boolean;
  /** Whether the file may be executed. */
  isExecutable(p: string): boolean;
}

export type Resolution =
  | { ok: true; path: string; source: ServerSource; needsChmod?: boolean }
  | { ok: false; message: string; fix: 'setting' | 'install' };

/** The platforms whose binary the .vsix ships. */
export const bundledPlatforms: ReadonlyArray<string> = ['linux-x64'];

/** Where the .vsix puts the server binary for this platform. */
export function bundledServerPath(extensionPath: string, platform: string): string {
  return path.join(extensionPath, 'bin', platform === 'win32' ? 'weft.exe' : 'weft');
}

/** Decides which program to start, or says why none can be, and how to fix it. */
export function resolveServer(p: Probe): Resolution {
  const configured = p.configured.trim();
  if (configured !== '') {
    const full = configured.startsWith('~') ? path.join(p.home, configured.slice(1)) : configured;
    if (!p.isFile(full)) {
      return {
        ok: false,
        fix: 'setting',
        message: `The setting weft.serverPath is "${configured}", but there is no such file. Correct the setting, or clear it to use the server shipped with the extension.`,
      };
    }
    if (!p.isExecutable(full)) {
      return {
        ok: false,
        fix: 'setting',
        message: `The setting weft.serverPath is "${configured}", but that file is not executable (chmod +x it), or clear the setting to use the server shipped with the extension.`,
      };
    }
    return { ok: true, path: full, source: 'setting' };
  }
  const target = `${p.platform}-${p.arch}`;
  if (bundledPlatforms.includes(target)) {
    const bundled = bundledServerPath(p.extensionPath, p.platform);
    if (p.isFile(bundled)) {
      return { ok: true, path: bundled, source: 'bundled', needsChmod: !p.isExecutable(bundled) };
    }
  }
  const exe = p.platform === 'win32' ? 'weft.exe' : 'weft';
  const sep = p.platform === 'win32' ? ';' : ':';
  for (const dir of p.envPath.split(sep)) {
    if (dir === '') {
      continue;
    }
    const candidate = path.join(dir, exe);
    if (p.isFile(candidate) && p.isExecutable(candidate)) {
      return { ok: true, path: candidate, source: 'PATH' };
    }
  }
  const shipped = bundledPlatforms.includes(target)
    ? 'The server shipped with the extension is missing (a damaged install?), and'
    : `This extension ships the server for ${bundledPlatforms.join(', ')} only, not ${target}, and`;
  return {
    ok: false,
    fix: 'install',
    message: `${shipped} no \`weft\` program is on PATH. Install it (\`go install ./cmd/weft\` in a checkout of Weft) and set weft.serverPath to its path, or put it on PATH.`,
  };
}
