// Builds the extension with esbuild: the extension host bundle
// (dist/extension.js, Node, CommonJS, `vscode` left to the host) and the
// trace view's webview script (dist/webview.js, browser). With --tests it
// also bundles each unit test (test/unit/*.test.ts) into out/test/unit/,
// to run with `node --test`; unit tests must not import `vscode`.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tests = process.argv.includes('--tests');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

rmSync(join(root, 'dist'), { recursive: true, force: true });
const builds = [
  esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  }),
];
if (existsSync(join(root, 'src/traceView/webview/main.ts'))) {
  builds.push(esbuild.build({
    ...common,
    entryPoints: ['src/traceView/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  }));
}
if (tests) {
  rmSync(join(root, 'out'), { recursive: true, force: true });
  const unit = readdirSync(join(root, 'test/unit')).filter((f) => f.endsWith('.test.ts'));
  builds.push(esbuild.build({
    ...common,
    sourcemap: 'inline',
    minify: false,
    entryPoints: unit.map((f) => `test/unit/${f}`),
    outdir: 'out/test/unit',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  }));
}
await Promise.all(builds);
