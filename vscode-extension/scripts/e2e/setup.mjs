// What the end-to-end test needs on the machine, installed when missing:
// Debian's chromium (the browser playwright-core drives), ripgrep and
// libkrb5-dev (code-server's install needs them), and code-server itself
// in a cache directory outside the repository, reused from run to run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';
// @vscode/ripgrep (a dependency of code-server's VS Code) downloads rg from
// GitHub unless its cache holds the archive; we put Debian's rg there.
const RIPGREP_CACHE = 'vscode-ripgrep-cache-1.15.11';
const RIPGREP_ARCHIVE = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

const APT_PACKAGES = ['chromium', 'chromium-driver', 'ripgrep', 'libkrb5-dev'];

/** The cache directory: $WEFT_E2E_CACHE, else $XDG_CACHE_HOME/weft-e2e, else ~/.cache/weft-e2e. */
export function cacheDir() {
  if (process.env.WEFT_E2E_CACHE) return process.env.WEFT_E2E_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'weft-e2e');
}

function dpkgInstalled(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

/** Installs the Debian packages that are missing (as root, or through sudo). */
export async function ensureSystemPackages(procs, log) {
  const missing = APT_PACKAGES.filter((p) => !dpkgInstalled(p));
  if (!existsSync('/usr/bin/chromium') && !missing.includes('chromium')) missing.push('chromium');
  if (missing.length === 0) return { installed: [] };
  const root = process.getuid?.() === 0;
  const [cmd, pre] = root ? ['apt-get', []] : ['sudo', ['-n', 'apt-get']];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => procs.run(cmd, [...pre, ...args], { env, timeoutMs: 600_000 });
  log(`installing ${missing.join(' ')} with apt-get${root ? '' : ' (sudo)'}`);
  let r = await apt(['install', '-y', ...missing]);
  if (r.code !== 0) {
    log('apt-get install failed; running apt-get update and trying again');
    const u = await apt(['update']);
    if (u.code !== 0) throw new Error(`apt-get update failed:\n${u.out.slice(-3000)}`);
    r = await apt(['install', '-y', ...missing]);
  }
  if (r.code !== 0) {
    throw new Error(`apt-get install -y ${missing.join(' ')} failed${root ? '' : ' (is sudo allowed without a password?)'}:\n${r.out.slice(-3000)}`);
  }
  return { installed: missing };
}

/**
 * Returns the path of code-server's entry script (run it with node),
 * installing code-server into the cache first if it is not there.
 */
export async function ensureCodeServer(procs, log) {
  const cache = cacheDir();
  const dir = join(cache, `code-server-${CODE_SERVER_VERSION}`);
  const marker = join(dir, '.weft-e2e-complete');
  const entry = join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (existsSync(marker) && existsSync(entry)) return { entry, installed: false, dir };

  const t0 = Date.now();
  const tmp = join(cache, 'tmp');
  const staging = join(cache, `code-server-${CODE_SERVER_VERSION}.partial-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(join(tmp, RIPGREP_CACHE), { recursive: true });
  mkdirSync(staging, { recursive: true });
  const rg = spawnSync('tar', ['czf', join(tmp, RIPGREP_CACHE, RIPGREP_ARCHIVE), 'rg'], { cwd: '/usr/bin', encoding: 'utf8' });
  if (rg.status !== 0) throw new Error(`cannot archive /usr/bin/rg for @vscode/ripgrep: ${rg.stderr}`);
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true, description: 'code-server for Weft\'s end-to-end test' }) + '\n');

  log(`installing code-server@${CODE_SERVER_VERSION} into ${dir} (once; about 40 s, 300 MB)`);
  // TMPDIR must be the same for the ripgrep archive and the install.
  const env = { ...process.env, TMPDIR: tmp, npm_config_yes: 'true', npm_config_unsafe_perm: 'true', npm_config_fund: 'false', npm_config_audit: 'false' };
  const r = await procs.run('npm', ['install', '--no-save', `code-server@${CODE_SERVER_VERSION}`], { cwd: staging, env, timeoutMs: 900_000 });
  if (r.code !== 0 || !existsSync(join(staging, 'node_modules', 'code-server', 'out', 'node', 'entry.js'))) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install code-server@${CODE_SERVER_VERSION} failed:\n${r.out.slice(-4000)}`);
  }
  // Its postinstall must have run (it links node_modules.asar and fetches VS Code's dependencies).
  const vscodeLib = join(staging, 'node_modules', 'code-server', 'lib', 'vscode');
  for (const p of ['node_modules.asar', join('node_modules', '@vscode', 'ripgrep', 'bin', 'rg')]) {
    if (!existsSync(join(vscodeLib, p))) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(`code-server's postinstall did not run: lib/vscode/${p} is missing (npm output:\n${r.out.slice(-3000)})`);
    }
  }
  const version = JSON.parse(readFileSync(join(staging, 'node_modules', 'code-server', 'package.json'), 'utf8')).version;
  if (version !== CODE_SERVER_VERSION) throw new Error(`npm installed code-server ${version}, not ${CODE_SERVER_VERSION}`);
  writeFileSync(join(staging, '.weft-e2e-complete'), `${version}\n`);
  renameSync(staging, dir);
  log(`code-server installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { entry, installed: true, dir, seconds: (Date.now() - t0) / 1000 };
}
