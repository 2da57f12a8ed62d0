// web/tests/setup-report.test.mjs: the HTML page of `gordian setup analyse FILE --html OUT`
// in headless Chromium, checked against the same run's --json. Run: cd web && node --test
// tests/setup-report.test.mjs (needs `bash web/build.sh` first, and target/release/gordian or
// $GORDIAN_BIN).
// Owns: (1) the page of instances/setup/blocker-loop.setup shows the report's numbers (the
// class chart's bars and counts, expected deaths, the per-role chart, the per-player and
// per-action tables), (2) every paradox cause has its example night, a playground link and a
// download, and following the first link opens the playground with that night in its editor
// (a paradox when resolved there), (3) the page requests nothing but itself, served by the
// playground's server or opened from the disk (file://), (4) a sampled report draws each
// class's 95% interval as a whisker.
// Writes the page into the served folder (web/dist/setup-report-test.html, or under
// $GORDIAN_WEB_DIST) for the run and removes it at the end.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, cli, startSite, startBrowser, resolveAndWait } from './harness.mjs';

const SETUP = 'instances/setup/blocker-loop.setup';
const SERVED = 'setup-report-test.html';
const CLASSES = ['paradox', 'quasi_paradox', 'non_paradox'];

const site = await startSite();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gordian-setup-report-'));
const reportFile = path.join(tmp, 'report.html');
const servedFile = path.join(DIST, SERVED);
let browser;
let report; // the run's --json
const pageErrors = []; // uncaught exceptions in any page

/** `setup analyse` with --html FILE --playground index.html --json; resolves to the JSON. */
async function analyse(html, ...more) {
  const out = await cli(['setup', 'analyse', SETUP, '--html', html, '--playground', 'index.html', '--json', ...more]);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout);
}

/**
 * Open `url` in a fresh page, recording every request the page makes and every error it logs
 * (a load its Content-Security-Policy blocks is both a request and a logged error).
 */
async function openRecording(url) {
  const page = await browser.context.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (req) => requests.push(req.url()));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, errors };
}

/**
 * Whether `shown` is the share `x` as a percentage with two decimals ("3.12%"; the page
 * rounds like Rust's formatting, 3.125 to 3.12, and JavaScript's toFixed to 3.13: compare numbers).
 */
const isPct = (shown, x) => /^\d+\.\d\d%$/.test(shown) && Math.abs(parseFloat(shown) - 100 * x) <= 0.005 + 1e-9;
const assertPct = (shown, x, what) => assert.ok(isPct(shown.trim(), x), `${what}: ${shown} is not ${100 * x}%`);

/** The text of a playground link's `text` parameter (uncompressed URL-safe base64). */
const fromLink = (params) => Buffer.from(params.get('text'), 'base64url').toString('utf8');

before(async () => {
  report = await analyse(reportFile);
  fs.copyFileSync(reportFile, servedFile);
  browser = await startBrowser();
  browser.context.on('page', (page) => page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`)));
});

after(async () => {
  if (browser) await browser.close();
  await site.close();
  fs.rmSync(servedFile, { force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe(`the page of ${SETUP}`, () => {
  let page;
  let requests;
  let errors;
  const url = () => new URL(SERVED, site.url).href;
  before(async () => {
    ({ page, requests, errors } = await openRecording(url()));
  });
  after(async () => {
    await page.close();
  });

  test('it requests nothing but itself', () => {
    assert.deepEqual(requests, [url()]);
    assert.deepEqual(errors, []);
  });

  test('it renders, titled with the setup', async () => {
    const name = path.basename(report.setup);
    assert.ok((await page.title()).includes(name), await page.title());
    assert.ok((await page.locator('h1').textContent()).includes(name));
    const summary = await page.locator('p.summary').textContent();
    assert.equal(report.mode, 'exact');
    assert.ok(summary.includes(`All ${report.nights} nights the setup allows were enumerated`), summary);
    assert.ok(summary.includes(`${report.distinct_nights_solved} distinct nights were solved`), summary);
    assert.ok(summary.includes(`${report.cross_checked} of them cross-checked by both engines`), summary);
  });

  test('the class chart has a bar per class, with the counts and shares of the JSON', async () => {
    const chart = page.locator('svg#classes-chart');
    assert.equal(await chart.locator('rect.bar').count(), 3);
    const counts = CLASSES.map((k) => report.classes[k].nights);
    assert.equal(counts.reduce((a, b) => a + b, 0), report.answered, 'the classes add up to the nights');
    const widths = {};
    for (const key of CLASSES) {
      const c = report.classes[key];
      const row = chart.locator(`g[data-class="${key}"]`);
      assert.equal(await row.getAttribute('data-count'), String(c.nights));
      const shown = await row.locator('text.value').textContent();
      const [count, share] = shown.split(' \u00b7 ');
      assert.equal(count, `${c.nights} ${c.nights === 1 ? 'night' : 'nights'}`, key);
      assertPct(share, c.share, key);
      widths[key] = await row.locator('rect.bar').evaluate((r) => r.getBBox().width);
      assert.equal(await row.locator('line.whisker').count(), 0, 'an exact report has no intervals');
    }
    // The bars are drawn to scale.
    const full = widths.paradox + widths.quasi_paradox + widths.non_paradox;
    for (const key of CLASSES) {
      assert.ok(Math.abs(widths[key] / full - report.classes[key].share) < 0.005, `${key} is drawn to scale`);
    }
  });

  test('expected deaths, the per-role chart and the per-player and per-action tables', async () => {
    assert.equal(await page.locator('#expected-deaths').textContent(), report.expected_deaths.mean.toFixed(4));
    const roles = page.locator('svg#roles-chart g[data-role]');
    assert.deepEqual(await roles.evaluateAll((gs) => gs.map((g) => g.dataset.role)), report.roles.map((r) => r.role));
    assert.equal(await page.locator('svg#roles-chart rect.bar').count(), report.roles.length);
    for (const r of report.roles) {
      const shown = await page.locator(`svg#roles-chart g[data-role="${r.role}"] text.value`).textContent();
      assertPct(shown, r.death_chance, r.role);
    }
    const rows = await page.locator('table#players tbody tr').evaluateAll(
      (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)),
    );
    assert.deepEqual(rows.map((r) => r.slice(0, 2)), report.players.map((p) => [p.player, p.role]));
    rows.forEach((r, i) => assertPct(r[2], report.players[i].death_chance, r[0]));
    const actions = await page.locator('table#actions-table tbody tr').evaluateAll(
      (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)),
    );
    assert.deepEqual(actions.map((r) => r.slice(0, 2)), report.actions.map((a) => [a.action, `${a.taken_in} nights`]));
    actions.forEach((r, i) => assertPct(r[2], report.actions[i].fail_chance, r[0]));
  });

  test('every paradox cause has its example, a playground link and a download', async () => {
    assert.ok(report.paradox_causes.length > 0, `${SETUP} has paradoxes`);
    const causes = page.locator('#causes .cause');
    assert.equal(await causes.count(), report.paradox_causes.length);
    for (const [i, c] of report.paradox_causes.entries()) {
      const cause = causes.nth(i);
      assert.equal(await cause.locator('.roles').textContent(), c.roles);
      assert.equal(await cause.locator('pre.example').textContent(), c.example);
      const link = cause.getByRole('link', { name: 'open in the playground' });
      assert.equal(await link.count(), 1);
      const href = new URL(await link.getAttribute('href'), page.url());
      assert.equal(href.href.split('#')[0], new URL('index.html', site.url).href);
      const params = new URLSearchParams(href.hash.slice(1));
      assert.equal(params.get('system'), 'ar');
      assert.equal(params.get('name'), `cause-${i + 1}.night`);
      assert.equal(params.has('z'), false, 'the link is uncompressed');
      assert.match(params.get('text'), /^[A-Za-z0-9_-]*$/, 'URL-safe base64 without padding');
      assert.equal(fromLink(params), c.example);
      const download = cause.getByRole('link', { name: 'download .night' });
      assert.equal(await download.getAttribute('download'), `cause-${i + 1}.night`);
      const data = await download.getAttribute('href');
      const prefix = 'data:text/plain;charset=utf-8,';
      assert.ok(data.startsWith(prefix), data);
      assert.equal(decodeURIComponent(data.slice(prefix.length)), c.example);
    }
  });

  test('the download link saves the example night', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#causes .cause').first().getByRole('link', { name: 'download .night' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'cause-1.night');
    assert.equal(fs.readFileSync(await download.path(), 'utf8'), report.paradox_causes[0].example);
  });

  test('following the first example link opens the playground with the night in its editor', { timeout: 120_000 }, async () => {
    await page.locator('#causes .cause').first().getByRole('link', { name: 'open in the playground' }).click();
    await page.waitForURL((u) => u.pathname.endsWith('/index.html'));
    await page.locator('button.example').first().waitFor({ timeout: 60_000 });
    assert.equal(await page.getByLabel('Instance', { exact: true }).inputValue(), report.paradox_causes[0].example);
    assert.equal(await page.getByLabel('File name').inputValue(), 'cause-1.night');
    assert.equal(await page.getByLabel('System').inputValue(), 'ar');
    // And it is the paradox the report says it is.
    await page.getByLabel('Time limit (seconds)').fill('600');
    const shown = await resolveAndWait(page);
    assert.equal(shown.state, 'done', shown.status);
    assert.match(shown.status, /^paradox:/);
  });
});

test('opened from the disk (file://), the page renders and requests nothing else', async () => {
  const url = pathToFileURL(reportFile).href;
  const { page, requests, errors } = await openRecording(url);
  assert.ok((await page.title()).includes(path.basename(SETUP)));
  assert.equal(await page.locator('svg#classes-chart rect.bar').count(), 3);
  assert.equal(await page.locator('svg#roles-chart rect.bar').count(), report.roles.length);
  assert.deepEqual(requests, [url]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a sampled report draws each class\'s 95% interval as a whisker', async () => {
  const file = path.join(tmp, 'sampled.html');
  const sampled = await analyse(file, '--sample', '--samples', '500', '--seed', '3');
  assert.equal(sampled.mode, 'sampled');
  const url = pathToFileURL(file).href;
  const { page, requests, errors } = await openRecording(url);
  assert.deepEqual(requests, [url]);
  assert.deepEqual(errors, []);
  const summary = await page.locator('p.summary').textContent();
  assert.ok(summary.includes(`${sampled.samples} nights were drawn uniformly at random`), summary);
  assert.ok(summary.includes(`seed ${sampled.seed}`), summary);
  for (const key of CLASSES) {
    const c = sampled.classes[key];
    assert.equal(c.ci95.length, 2);
    const row = page.locator(`svg#classes-chart g[data-class="${key}"]`);
    assert.equal(await row.getAttribute('data-count'), String(c.nights));
    assert.equal(await row.locator('line.whisker').count(), 3, `${key}: a whisker and its two ends`);
    const shown = await row.locator('text.value').textContent();
    const [, lo, hi] = shown.match(/\[(\S+), (\S+)\]$/) || [];
    assertPct(lo || '', c.ci95[0], `${key}'s interval`);
    assertPct(hi || '', c.ci95[1], `${key}'s interval`);
  }
  assert.equal(await page.locator('table#players thead th').count(), 4, 'the players\' table has an interval column');
  await page.close();
});

test('no page threw', () => {
  assert.deepEqual(pageErrors, []);
});
