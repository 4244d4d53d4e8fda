import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { Probe, resolveServer } from '../../src/serverPath';

function probe(files: Record<string, 'x' | 'r'>, over: Partial<Probe> = {}): Probe {
  return {
    configured: '',
    extensionPath: '/ext',
    platform: 'linux',
    arch: 'x64',
    envPath: '/usr/bin:/opt/weft/bin',
    home: '/home/me',
    isFile: (p) => p in files,
    isExecutable: (p) => files[p] === 'x',
    ...over,
  };
}

const cases: Array<{ name: string; files: Record<string, 'x' | 'r'>; over?: Partial<Probe>; want: { path?: string; source?: string; chmod?: boolean; error?: RegExp } }> = [
  { name: 'the setting wins', files: { '/my/weft': 'x', '/ext/bin/weft': 'x' }, over: { configured: '/my/weft' }, want: { path: '/my/weft', source: 'setting' } },
  { name: 'a setting with ~', files: { '/home/me/go/bin/weft': 'x' }, over: { configured: '~/go/bin/weft' }, want: { path: '/home/me/go/bin/weft', source: 'setting' } },
  { name: 'a missing configured file is an error, not a silent fallback', files: { '/ext/bin/weft': 'x' }, over: { configured: '/nope/weft' }, want: { error: /weft\.serverPath is "\/nope\/weft", but there is no such file/ } },
  { name: 'a configured file that cannot run', files: { '/my/weft': 'r' }, over: { configured: '/my/weft' }, want: { error: /not executable/ } },
  { name: 'the bundled binary on linux-x64', files: { '/ext/bin/weft': 'x', '/usr/bin/weft': 'x' }, want: { path: '/ext/bin/weft', source: 'bundled', chmod: false } },
  { name: 'the bundled binary that lost its mode is made executable', files: { '/ext/bin/weft': 'r' }, want: { path: '/ext/bin/weft', source: 'bundled', chmod: true } },
  { name: 'PATH when nothing is bundled', files: { '/opt/weft/bin/weft': 'x' }, want: { path: '/opt/weft/bin/weft', source: 'PATH' } },
  { name: 'the bundled linux binary is not used on macOS', files: { '/ext/bin/weft': 'x', '/opt/weft/bin/weft': 'x' }, over: { platform: 'darwin', arch: 'arm64' }, want: { path: '/opt/weft/bin/weft', source: 'PATH' } },
  { name: 'a non-executable file on PATH is skipped', files: { '/usr/bin/weft': 'r' }, over: { platform: 'darwin' }, want: { error: /ships the server for linux-x64 only, not darwin-x64.*go install/ } },
  { name: 'nothing anywhere on linux says the install is damaged', files: {}, want: { error: /missing \(a damaged install\?\).*weft\.serverPath/ } },
];

for (const c of cases) {
  test(`resolveServer: ${c.name}`, () => {
    const got = resolveServer(probe(c.files, c.over));
    if (c.want.error) {
      assert.equal(got.ok, false);
      assert.match((got as { message: string }).message, c.want.error);
      return;
    }
    assert.ok(got.ok, JSON.stringify(got));
    assert.equal(got.path, c.want.path);
    assert.equal(got.source, c.want.source);
    if (c.want.chmod !== undefined) {
      assert.equal(Boolean(got.needsChmod), c.want.chmod);
    }
  });
}
