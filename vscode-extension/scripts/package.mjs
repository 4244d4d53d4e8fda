// Builds the installable extension, vscode-extension/weft-<version>.vsix:
//   1. the language server for Linux x64, statically linked, into bin/weft
//      (`go build` from the repository root);
//   2. the production bundle (scripts/build.mjs --production) into dist/;
//   3. `vsce package --no-dependencies` (what goes in: .vscodeignore).
// Then it checks the archive: bin/weft, dist/extension.js and package.json
// are in it, and bin/weft is stored executable (the extension runs it from
// <extensionPath>/bin/weft). Prints the .vsix path and size.
//
// Usage: node scripts/package.mjs [--out FILE.vsix]
// (`npm run package` at the repository root.) A relative --out is taken
// from the directory npm was started in.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipEntries } from './zipinfo.mjs';

const ext = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(ext, '..');

function usage(msg) {
  console.error(`package: ${msg}\nusage: node scripts/package.mjs [--out FILE.vsix]`);
  process.exit(2);
}

function parseArgs(argv) {
  let out;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out' || a === '-o') {
      if (i + 1 >= argv.length) usage(`${a} needs a file name`);
      out = argv[++i];
    } else if (a.startsWith('--out=')) {
      out = a.slice('--out='.length);
    } else {
      usage(`unknown argument ${a}`);
    }
  }
  return { out };
}

// run runs a command to its end with its output on ours and fails the
// packaging, naming the step, if it does not succeed.
function run(step, cmd, args, opts = {}) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`${step}: cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new Error(`${step}: ${cmd} ${args.join(' ')} failed (${r.signal ?? `exit ${r.status}`})`);
  }
  console.log(`package: ${step} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

function vsceBin() {
  const require = createRequire(join(ext, 'package.json'));
  const pkgPath = require.resolve('@vscode/vsce/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.vsce;
  return join(dirname(pkgPath), bin);
}

function checkArchive(vsix) {
  const entries = new Map(zipEntries(vsix).map((e) => [e.name, e]));
  for (const want of ['extension/package.json', 'extension/dist/extension.js', 'extension/bin/weft']) {
    if (!entries.has(want)) throw new Error(`${vsix}: ${want} is missing from the archive`);
  }
  const server = entries.get('extension/bin/weft');
  if (server.mode === null) {
    throw new Error(`${vsix}: extension/bin/weft carries no Unix mode; installed, it would not be executable`);
  }
  if ((server.mode & 0o111) === 0) {
    throw new Error(`${vsix}: extension/bin/weft is stored with mode ${(server.mode & 0o777).toString(8)}, not executable`);
  }
  return { entries: entries.size, serverMode: server.mode & 0o777, serverSize: server.size };
}

/**
 * Builds the .vsix. Returns its path and size in bytes.
 * @param {{out?: string}} opts
 */
export function packageExtension(opts = {}) {
  const manifest = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
  const base = process.env.INIT_CWD || process.cwd();
  const out = opts.out ? resolve(base, opts.out) : join(ext, `${manifest.name}-${manifest.version}.vsix`);
  mkdirSync(dirname(out), { recursive: true });
  rmSync(out, { force: true });

  run('go build bin/weft (linux/amd64)', 'go', [
    'build', '-trimpath', '-ldflags=-s -w', '-o', join(ext, 'bin', 'weft'), './cmd/weft',
  ], { cwd: repo, env: { ...process.env, CGO_ENABLED: '0', GOOS: 'linux', GOARCH: 'amd64' } });
  run('esbuild --production', process.execPath, [join(ext, 'scripts', 'build.mjs'), '--production'], { cwd: ext });
  run('vsce package', process.execPath, [vsceBin(), 'package', '--no-dependencies', '-o', out], { cwd: ext });

  const info = checkArchive(out);
  const size = statSync(out).size;
  return { path: out, size, ...info };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const r = packageExtension(parseArgs(process.argv.slice(2)));
    const mib = (r.size / 1024 / 1024).toFixed(2);
    console.log(`package: ${r.path} ${r.size} bytes (${mib} MiB), ${r.entries} entries; bin/weft mode ${r.serverMode.toString(8)}, ${r.serverSize} bytes`);
  } catch (err) {
    console.error(`package: FAILED: ${err.message}`);
    process.exit(1);
  }
}
