// The npm package (web/pkg, built by web/build.sh) used as a Node program uses it: loaded
// with `load()`, asked with `solve()`; its answers are compared with the native CLI's
// (`$GORDIAN_BIN`, default target/release/gordian) and with hand-worked nights.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { load, solve, systems, detect, version } from '../pkg/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.GORDIAN_BIN ?? path.join(root, 'target/release/gordian');
const cli = (...args) => execFileSync(bin, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });

await load();

test('a hand-worked night: the protection stops the kill, nobody dies', () => {
  const r = solve('players: M D C\nM kill C\nD protect C\n', { name: 'protect.night' });
  assert.equal(r.ok, true);
  assert.equal(r.status, 'non-paradox: exactly one resolution');
  assert.equal(r.answer.classification, 'non-paradox');
  assert.deepEqual(r.answer.death_probabilities, [{ deaths: [], probability: '1' }]);
  assert.equal(r.cross_checked, true);
  assert.match(r.report, /M kill C \[e1\] fails: protected by D \[e2\]/);
});

test('an odd cycle of blocks is a paradox with its minimal core', () => {
  // Three roleblockers in a cycle: no consistent night (docs/ar.md); cutting any one
  // block resolves it, so there are three optimal cuts of one effect.
  const r = solve('players: A B C\nA block B\nB block C\nC block A\n', { system: 'ar' });
  assert.equal(r.ok, true);
  assert.match(r.status, /^paradox: no resolution/);
  assert.equal(r.answer.totals.optimal_cuts, '3');
  assert.ok(r.answer.core, 'a paradox comes with its minimal core');
});

test('a malformed night is a located error, as the CLI renders it', () => {
  const r = solve('players: A B\nA kill B\nB kill\n');
  assert.equal(r.ok, false);
  assert.equal(r.kind, 'parse');
  assert.equal(r.system, 'ar');
  assert.equal(r.errors[0].line, 3);
  assert.match(r.status, /^error: /);
  assert.match(r.report, /--> instance:3:/);
});

test('every shipped night answers as `gordian resolve --explain --json` does', () => {
  const dir = path.join(root, 'instances/ar');
  const files = readdirSync(dir).filter((f) => f.endsWith('.night'));
  assert.ok(files.length > 10);
  for (const f of files) {
    const file = path.join('instances/ar', f);
    const r = solve(readFileSync(path.join(root, file), 'utf8'), { name: f });
    assert.equal(r.ok, true, f);
    assert.deepEqual(r.answer, JSON.parse(cli('resolve', file, '--explain', '--json')), f);
  }
});

test('a redirect: the redirector sends the Goon\'s kill to the bystander', () => {
  // By hand (docs/ar.md, "Coherent redirection"): nothing blocks Red, so e1 succeeds and,
  // processed, moves every slot of Goon's actions to By: the kill e2 lands on By, who
  // dies; Vic lives. The redirect visits Goon and By. One resolution, one way.
  const night = 'players: Red Goon Vic By\nRed redirect Goon to By\nGoon kill Vic\n';
  const r = solve(night, { name: 'redirect.night', results: true });
  assert.equal(r.ok, true, r.report);
  assert.equal(r.status, 'non-paradox: exactly one resolution');
  assert.equal(r.command, 'gordian resolve FILE --explain --json --results');
  assert.deepEqual(r.answer.effects.map((e) => [e.kind, e.targets]), [['redirect', ['Goon', 'By']], ['kill', ['Vic']]]);
  assert.deepEqual(r.answer.resolutions[0].ways,
    [{ final_targets: { e1: ['Goon', 'By'], e2: ['By'] }, deaths: ['By'] }]);
  assert.deepEqual(r.answer.death_probabilities, [{ deaths: ['By'], probability: '1' }]);
  assert.deepEqual(r.answer.results[0].players,
    { By: [{ kind: 'killed', effect: null, target: null, saw: null, by: ['e2'], text: 'was killed' }] });
  assert.equal(r.cross_checked, true);
  // `to` is optional and the roles read as the kind: the same answer.
  for (const same of ['Red redirect Goon By', 'Red redirector Goon to By', 'Red puppeteer Goon By']) {
    const s = solve(night.replace('Red redirect Goon to By', same), { name: 'redirect.night', results: true });
    assert.deepEqual(s.answer, r.answer, same);
  }
  // And the CLI answers the same file the same way.
  const dir = mkdtempSync(path.join(tmpdir(), 'gordian-npm-redirect-'));
  try {
    const file = path.join(dir, 'redirect.night');
    writeFileSync(file, night);
    assert.deepEqual(r.answer, JSON.parse(cli('resolve', file, '--explain', '--json', '--results')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the other systems answer as `gordian check --json` does', () => {
  for (const sys of ['fft', 'lancer', 'foeman', 'ff8']) {
    const dir = path.join(root, 'instances', sys);
    const f = readdirSync(dir).filter((x) => x !== 'README.md').sort()[0];
    const file = path.join('instances', sys, f);
    const text = readFileSync(path.join(root, file), 'utf8');
    assert.equal(detect(text), sys, f);
    const r = solve(text);
    assert.equal(r.ok, true, f);
    assert.equal(r.system, sys);
    assert.deepEqual(r.answer, JSON.parse(cli('check', file, '--json')).files[0].answer, f);
  }
});

test('the time limit is honoured inside WebAssembly', () => {
  const night = cli('gen', '--system', 'ar', '--seed', '3', '--count', '1', '--out', '-',
    '--players', '40', '--max-effects', '400');
  const t0 = performance.now();
  const r = solve(night, { timeoutMs: 1 });
  assert.equal(r.ok, false);
  assert.equal(r.kind, 'timeout');
  assert.match(r.status, /no answer within the time limit of 0\.001 s/);
  assert.ok(performance.now() - t0 < 5000, 'stopped soon after the limit');
});

test('systems, version and bad arguments', () => {
  assert.deepEqual(systems().map((s) => s.id), ['ar', 'fft', 'lancer', 'foeman', 'ff8']);
  assert.match(version(), /^\d+\.\d+\.\d+/);
  assert.throws(() => solve(42), TypeError);
  const r = solve('x', { system: 'chess' });
  assert.equal(r.ok, false);
  assert.equal(r.kind, 'input');
});
