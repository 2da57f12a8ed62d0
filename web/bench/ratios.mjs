// The WebAssembly module (web/pkg, run by Node) against the native binary, in one run:
// every shipped instance and a random 1,000-effect night, each answered the way the
// playground answers it (nights: `resolve --explain --json`; other systems: `check
// --json`). Prints each median time and the ratio WebAssembly / native; the native times
// are whole processes (start included), the WebAssembly ones a `solve()` call in an
// already loaded module (its one-time load is printed apart).
//
//   node web/bench/ratios.mjs [--runs N]        (after web/build.sh and cargo build --release)
//
// Environment: GORDIAN_BIN (default target/release/gordian).

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.GORDIAN_BIN ?? path.join(root, 'target/release/gordian');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
if (!Number.isInteger(runs) || runs < 1) {
  console.error('usage: node web/bench/ratios.mjs [--runs N]  (N >= 1)');
  process.exit(2);
}

const t0 = performance.now();
const { load, solve } = await import('../pkg/index.js');
await load();
const loadMs = performance.now() - t0;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function nativeArgs(system, file) {
  return system === 'ar' ? ['resolve', file, '--explain', '--json'] : ['check', file, '--json'];
}

function timeNative(system, file) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const r = spawnSync(bin, nativeArgs(system, file), { maxBuffer: 1 << 30 });
    times.push(performance.now() - s);
    if (r.status !== 0) throw new Error(`${bin} ${nativeArgs(system, file).join(' ')}: exit ${r.status}`);
  }
  return median(times);
}

function timeWasm(system, file) {
  const text = readFileSync(file, 'utf8');
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const r = solve(text, { system, name: path.basename(file) });
    times.push(performance.now() - s);
    if (!r.ok) throw new Error(`${file}: ${r.status}`);
  }
  return median(times);
}

const cases = [];
for (const sys of ['ar', 'fft', 'lancer', 'foeman', 'ff8']) {
  const dir = path.join(root, 'instances', sys);
  for (const f of readdirSync(dir).sort()) {
    if (f !== 'README.md') cases.push({ sys, file: path.join(dir, f), label: `${sys}/${f}` });
  }
}
const shipped = cases.length;
// The README's random 1,000-effect night (seed 7).
const big = path.join(mkdtempSync(path.join(tmpdir(), 'gordian-bench-')), 'night-1000-7.night');
writeFileSync(big, execFileSync('cargo', ['run', '--quiet', '--release', '--example', 'night', '--', '1000', '7'],
  { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 }));
cases.push({ sys: 'ar', file: big, label: 'random night, 1,000 effects (example night 1000 7)' });

console.log(`gordian: WebAssembly (Node ${process.version}, one thread) vs native (${cpus().length} cores), ` +
  `median of ${runs} runs each, same run`);
console.log(`module load (once): ${loadMs.toFixed(1)} ms\n`);
const w = Math.max(...cases.map((c) => c.label.length));
console.log(`${'instance'.padEnd(w)}  ${'native ms'.padStart(10)}  ${'wasm ms'.padStart(10)}  ${'ratio'.padStart(6)}`);
const ratios = [];
for (const c of cases) {
  const n = timeNative(c.sys, c.file);
  const m = timeWasm(c.sys, c.file);
  ratios.push(m / n);
  console.log(`${c.label.padEnd(w)}  ${n.toFixed(1).padStart(10)}  ${m.toFixed(1).padStart(10)}  ${(m / n).toFixed(2).padStart(6)}`);
}
const geo = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
const shippedRatios = ratios.slice(0, shipped);
console.log(`\nshipped instances (${shipped}): geometric mean ratio ${geo(shippedRatios).toFixed(2)}, ` +
  `worst ${Math.max(...shippedRatios).toFixed(2)}`);
console.log(`1,000-effect night: ratio ${ratios[shipped].toFixed(2)} (target: within 3x of native)`);
