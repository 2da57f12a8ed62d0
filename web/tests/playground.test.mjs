// web/tests/playground.test.mjs: browser tests of the gordian playground (web/dist) in headless
// Chromium, checked against the native CLI. Run: cd web && npm ci && node --test tests/
// (needs `bash web/build.sh` first, and target/release/gordian or $GORDIAN_BIN).
// Owns: (1) every shipped instance answers as the CLI does, (2) a malformed night is located
// in the editor, (3) Cancel stops a long run and the page stays usable, (4) a share link
// round-trips, (5) no request leaves localhost, no page throws, the page works without Graphviz,
// (6) the role instances (bus driver, redirector, bodyguard, ...) are in the list, a bus-driver
// night typed into the page kills John, and "What each player learns" asks for `--results`,
// (7) with GORDIAN_SCREENSHOT=1, docs/img/playground.png is taken (deflect-stop-paradox.night).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT, cli, cliAnswer, startSite, startBrowser, status, resolveAndWait, pageAnswer, openPage, pickInstance,
} from './harness.mjs';

const site = await startSite();
const instances = await (await fetch(new URL('instances.json', site.url))).json();
let browser;
const outside = []; // requests that left the test's own server
const pageErrors = []; // uncaught exceptions in any page

before(async () => {
  browser = await startBrowser();
  browser.context.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(site.url) && !u.startsWith('data:') && !u.startsWith('blob:')) outside.push(u);
  });
  browser.context.on('page', (page) => page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`)));
});

after(async () => {
  if (browser) await browser.close();
  await site.close();
});

/** A page with a generous time limit (the WebAssembly solver runs on one thread). */
async function freshPage() {
  const page = await openPage(browser.context, site.url);
  await page.getByLabel('Time limit (seconds)').fill('600');
  return page;
}

const byName = (name) => {
  const i = instances.findIndex((x) => x.name === name);
  assert.ok(i >= 0, `${name} is not in instances.json`);
  return i;
};

describe('every shipped instance answers as the CLI does', () => {
  let page;
  before(async () => {
    page = await freshPage();
  });
  after(async () => {
    await page.close();
  });

  test('instances.json lists every system', () => {
    const systems = new Set(instances.map((x) => x.system));
    for (const s of ['ar', 'fft', 'lancer', 'foeman', 'ff8']) assert.ok(systems.has(s), `no ${s} instance`);
  });

  instances.forEach((inst, index) => {
    test(`${inst.system}: ${inst.name}`, { timeout: 600_000 }, async () => {
      await pickInstance(page, index);
      assert.equal(await page.getByLabel('Instance', { exact: true }).inputValue(), inst.text);
      const shown = await resolveAndWait(page);
      assert.equal(shown.state, 'done', `the page answered: ${shown.status}`);
      const { answer, command } = await pageAnswer(page);
      const file = path.join(ROOT, inst.path);
      if (inst.system === 'ar') {
        assert.equal(command, 'gordian resolve FILE --explain --json');
        const report = await cli(['resolve', file, '--explain']);
        assert.equal(report.code, 0, report.stderr);
        assert.equal(shown.status, report.stdout.split('\n')[0], 'status line');
      } else {
        assert.equal(command, 'gordian check FILE --json');
      }
      assert.deepStrictEqual(answer, await cliAnswer(command, file));
    });
  });
});

describe('a malformed night is located in the editor', () => {
  const cases = [
    { what: 'a kill without its target', text: 'players: A B C\nA visit B\n\nB kill\nC protect A\n', line: 4 },
    { what: 'an unknown word', text: 'players: A B\nA frob B\nB visit A\n', line: 2 },
  ];
  for (const c of cases) {
    test(c.what, { timeout: 120_000 }, async () => {
      // The CLI's own first message and location, to compare with.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gordian-web-bad-'));
      const file = path.join(dir, 'bad.night');
      fs.writeFileSync(file, c.text);
      const out = await cli(['resolve', file]);
      fs.rmSync(dir, { recursive: true, force: true });
      assert.equal(out.code, 2, 'the CLI rejects it');
      const [first, where] = out.stderr.split('\n');
      const [, line, column] = where.match(/:(\d+):(\d+)$/).map(Number);
      assert.equal(line, c.line);
      const message = first.replace(/^error: /, '');

      const page = await freshPage();
      await page.getByLabel('System').selectOption('ar');
      await page.getByLabel('File name').fill('bad.night');
      await page.getByLabel('Instance', { exact: true }).fill(c.text);
      const shown = await resolveAndWait(page);
      assert.match(shown.status, /^error:/);
      assert.equal(shown.status, first, 'the status line is the CLI\'s first message');
      assert.equal(shown.state, 'error');

      // The line is marked in the gutter, its message is written next to it and under the
      // editor, and the caret sits at line:column.
      const marked = page.locator('#gutter .has-error');
      assert.deepEqual(await marked.evaluateAll((els) => els.map((e) => e.dataset.line)), [String(line)]);
      const inline = page.locator('#marks .mark-msg');
      assert.equal(await inline.count(), 1);
      assert.ok(await inline.isVisible(), 'the message next to the line is visible');
      assert.ok((await inline.textContent()).includes(message));
      const below = page.locator('#editor-error');
      assert.ok(await below.isVisible());
      assert.equal(await below.textContent(), `Line ${line}, column ${column}: ${message}`);
      const caret = await page.getByLabel('Instance', { exact: true }).evaluate((ta) => {
        const before = ta.value.slice(0, ta.selectionStart).split('\n');
        return { line: before.length, column: before[before.length - 1].length + 1, focused: document.activeElement === ta };
      });
      assert.deepEqual(caret, { line, column, focused: true });
      // Typing removes the marks (they would point at shifted lines).
      await page.keyboard.type(' ');
      assert.equal(await marked.count(), 0);
      await page.close();
    });
  }
});

test('Cancel stops a long run and the page stays usable', { timeout: 300_000 }, async () => {
  const big = await cli(['gen', '--system', 'ar', '--seed', '1', '--count', '1', '--out', '-',
    '--players', '40', '--max-effects', '1000']);
  assert.equal(big.code, 0, big.stderr);
  const page = await freshPage();
  await page.getByLabel('System').selectOption('ar');
  await page.getByLabel('Instance', { exact: true }).fill(big.stdout);
  await page.getByRole('button', { name: 'Resolve', exact: true }).click();
  await page.waitForTimeout(500);
  assert.equal(await status(page).getAttribute('data-state'), 'running', 'the big night is still running after 0.5 s');
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('[role="status"]').dataset.state !== 'running', null, { timeout: 10_000 });
  assert.match(await status(page).textContent(), /^cancelled/);
  assert.ok(await page.getByRole('button', { name: 'Resolve', exact: true }).isEnabled());
  assert.ok(await page.getByRole('button', { name: 'Cancel', exact: true }).isDisabled());

  // A fresh worker answers the next request.
  const index = byName('odd-block-cycle.night');
  await pickInstance(page, index);
  const shown = await resolveAndWait(page);
  assert.equal(shown.state, 'done', shown.status);
  const { answer, command } = await pageAnswer(page);
  assert.deepStrictEqual(answer, await cliAnswer(command, path.join(ROOT, instances[index].path)));
  await page.close();
});

test('the time limit stops a run that is too long', { timeout: 300_000 }, async () => {
  const big = await cli(['gen', '--system', 'ar', '--seed', '1', '--count', '1', '--out', '-',
    '--players', '40', '--max-effects', '1000']);
  const page = await freshPage();
  await page.getByLabel('Time limit (seconds)').fill('1');
  await page.getByLabel('System').selectOption('ar');
  await page.getByLabel('Instance', { exact: true }).fill(big.stdout);
  const shown = await resolveAndWait(page, 60_000);
  // Either the solver's own limit answered (kind timeout) or the page stopped the worker.
  assert.equal(shown.state, 'error');
  assert.match(shown.status, /^error:/);
  await pickInstance(page, byName('deflect-chain.night'));
  await page.getByLabel('Time limit (seconds)').fill('600');
  assert.equal((await resolveAndWait(page)).state, 'done');
  await page.close();
});

test('a share link round-trips', { timeout: 300_000 }, async () => {
  const page = await freshPage();
  const inst = instances[byName('odd-block-cycle.night')];
  await pickInstance(page, byName(inst.name));
  const first = await resolveAndWait(page);
  assert.equal(first.state, 'done');
  await page.getByRole('button', { name: 'Share link', exact: true }).click();
  await page.waitForFunction(() => document.getElementById('share-url').value !== '');
  const link = await page.getByLabel('Link to this instance').inputValue();
  assert.ok(link.startsWith(site.url), link);
  const fragment = new URLSearchParams(new URL(link).hash.slice(1));
  assert.equal(fragment.get('system'), 'ar');
  assert.ok(fragment.get('text'));
  assert.equal(new URL(page.url()).hash, new URL(link).hash, 'the address bar holds the link too');

  const other = await openPage(browser.context, link);
  await other.getByLabel('Time limit (seconds)').fill('600');
  assert.equal(await other.getByLabel('Instance', { exact: true }).inputValue(), inst.text);
  const again = await resolveAndWait(other);
  assert.equal(again.status, first.status);
  assert.deepStrictEqual((await pageAnswer(other)).answer, (await pageAnswer(page)).answer);

  // An uncompressed link in the documented form opens too (any UTF-8 text).
  const text = 'players: Zoë Åsa\nZoë kill Åsa\n';
  const plain = `${site.url}#system=ar&text=${Buffer.from(text, 'utf8').toString('base64url')}`;
  const third = await openPage(browser.context, plain);
  assert.equal(await third.getByLabel('Instance', { exact: true }).inputValue(), text);
  assert.equal(await third.getByLabel('System').inputValue(), 'ar');
  await Promise.all([page.close(), other.close(), third.close()]);
});

test('Download JSON saves the answer as <name>.json', { timeout: 120_000 }, async () => {
  const page = await freshPage();
  await pickInstance(page, byName('deflect-chain.night'));
  assert.equal((await resolveAndWait(page)).state, 'done');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download JSON', exact: true }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'deflect-chain.night.json');
  const saved = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.deepStrictEqual(saved, (await pageAnswer(page)).answer);
  await page.close();
});

test('without Graphviz (vendor/viz.js) the page still answers', { timeout: 120_000 }, async () => {
  const page = await browser.context.newPage();
  await page.route('**/vendor/viz.js', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(site.url);
  await page.locator('button.example').first().waitFor();
  await pickInstance(page, byName('odd-block-cycle.night'));
  assert.equal((await resolveAndWait(page)).state, 'done');
  await page.locator('#picture', { hasText: 'vendor/viz.js is missing' }).waitFor({ timeout: 30_000 });
  await page.close();
});

test('the picture is drawn, no request leaves localhost, no page threw', { timeout: 120_000 }, async () => {
  const page = await freshPage();
  await pickInstance(page, byName('deflect-seed-paradox.night'));
  assert.equal((await resolveAndWait(page)).state, 'done');
  await page.locator('#picture svg').waitFor({ timeout: 60_000 });
  await page.close();
  assert.deepEqual(outside, []);
  assert.deepEqual(pageErrors, []);
});

// Graphviz sizes labels by its own font estimate and the browser may draw them wider: no
// label (the legend's long lines included) may stick out of the picture and be cut off.
test('every label of the picture is inside it, the legend included', { timeout: 120_000 }, async () => {
  const page = await freshPage();
  await pickInstance(page, byName('deflect-stop-paradox.night'));
  assert.match((await resolveAndWait(page)).status, /^paradox:/);
  await page.locator('#picture svg').waitFor({ timeout: 60_000 });
  for (const actual of [false, true]) {
    if (actual) await page.locator('#zoom').click();
    const outside = await page.evaluate(() => {
      const svg = document.querySelector('#picture svg');
      const s = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')]
        .filter((t) => {
          const r = t.getBoundingClientRect();
          return r.left < s.left - 0.5 || r.right > s.right + 0.5
            || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5;
        })
        .map((t) => t.textContent);
    });
    assert.deepEqual(outside, [], `labels cut off (actual size: ${actual})`);
  }
  const legend = await page.locator('#picture svg text', { hasText: 'solid: succeeds' }).count();
  assert.equal(legend, 1, 'the legend is drawn');
  await page.close();
});

describe('the redirection roles', () => {
  test('the list offers the role instances', { timeout: 120_000 }, async () => {
    const page = await freshPage();
    const ar = page.locator('#examples details', { hasText: '?AR mafia nights' });
    const shipped = fs.readdirSync(path.join(ROOT, 'instances/ar'))
      .filter((f) => f.startsWith('role-') || f.startsWith('results-'));
    for (const name of [
      'role-bus-driver.night', 'role-redirector-loop.night', 'role-redirector-variant-a.night',
      'role-redirector-variant-b.night', 'role-bodyguard.night', 'role-bodyguard-strongman.night',
      'role-deflector-other.night', 'role-bus-drivers-sharing.night', 'results-swap-redirect.night',
      ...shipped,
    ]) {
      assert.equal(await ar.getByRole('button', { name, exact: true }).count(), 1, `${name} is listed`);
    }
    await page.close();
  });

  // The MafiaScum Bus Driver example (instances/ar/role-bus-driver.night, worked by hand):
  // BD swaps John and Jack, RB blocks John, the Goon kills Jack; the kill lands on John.
  const bus = [
    'players: BD John Jack RB Goon',
    'alignment: Goon=mafia John=town Jack=town',
    'BD bus_driver John Jack',
    'RB roleblocker John',
    'Goon kill Jack',
    'Jack cop Goon',
    '',
  ].join('\n');

  test('a bus-driver night typed into the page: John dies', { timeout: 300_000 }, async () => {
    const page = await freshPage();
    await page.getByLabel('File name').fill('bus.night');
    const editor = page.getByLabel('Instance', { exact: true });
    await editor.fill('');
    await editor.focus();
    await page.keyboard.type(bus);
    assert.equal(await editor.inputValue(), bus);
    const shown = await resolveAndWait(page);
    assert.equal(shown.state, 'done', shown.status);
    assert.equal(shown.status, 'non-paradox: exactly one resolution');
    const report = await page.locator('#report').textContent();
    assert.match(report, /^who dies:\n {8}1 {2}John dies$/m);
    assert.match(report, /Goon kill Jack \[e3\] goes to John instead of Jack/);
    const { answer, command } = await pageAnswer(page);
    assert.equal(command, 'gordian resolve FILE --explain --json');
    assert.deepEqual(answer.death_probabilities, [{ deaths: ['John'], probability: '1' }]);
    assert.equal(answer.effects[0].kind, 'swap', 'the role is written as its kind');

    // The same night with "What each player learns": the CLI's `--results`.
    await page.getByLabel('What each player learns (nights)').check();
    const again = await resolveAndWait(page);
    assert.equal(again.state, 'done', again.status);
    const withResults = await page.locator('#report').textContent();
    assert.match(withResults, /^ {6}John: was killed {2}\[e3\]$/m);
    assert.match(withResults, /^ {12}was blocked: investigate Goon \[e4\] failed {2}\[e2\]$/m);
    const learnt = await pageAnswer(page);
    assert.equal(learnt.command, 'gordian resolve FILE --explain --json --results');
    assert.equal(learnt.answer.results[0].players.John[0].kind, 'killed');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gordian-web-bus-'));
    const file = path.join(dir, 'bus.night');
    fs.writeFileSync(file, bus);
    try {
      assert.deepStrictEqual(learnt.answer, await cliAnswer(learnt.command, file));
      const cliReport = await cli(['resolve', file, '--explain', '--results']);
      assert.equal(withResults, cliReport.stdout, 'the report is the CLI\'s');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await page.close();
  });

  test('a share link keeps "What each player learns"', { timeout: 120_000 }, async () => {
    const page = await freshPage();
    await pickInstance(page, byName('results-swap-redirect.night'));
    await page.getByLabel('What each player learns (nights)').check();
    await page.getByRole('button', { name: 'Share link', exact: true }).click();
    await page.waitForFunction(() => document.getElementById('share-url').value !== '');
    const link = await page.getByLabel('Link to this instance').inputValue();
    assert.equal(new URLSearchParams(new URL(link).hash.slice(1)).get('results'), '1');
    const other = await openPage(browser.context, link);
    await other.getByLabel('Time limit (seconds)').fill('600');
    assert.ok(await other.getByLabel('What each player learns (nights)').isChecked());
    assert.equal((await resolveAndWait(other)).state, 'done');
    const { answer, command } = await pageAnswer(other);
    assert.equal(command, 'gordian resolve FILE --explain --json --results');
    assert.deepStrictEqual(answer, await cliAnswer(command, path.join(ROOT, 'instances/ar/results-swap-redirect.night')));
    await Promise.all([page.close(), other.close()]);
  });
});

test('screenshot for docs/img/playground.png', {
  timeout: 120_000,
  skip: process.env.GORDIAN_SCREENSHOT === '1' ? false : 'set GORDIAN_SCREENSHOT=1 to take it',
}, async () => {
  const page = await freshPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  // A real paradox: its optimal cut, a death, and a deflection in one picture.
  await pickInstance(page, byName('deflect-stop-paradox.night'));
  assert.match((await resolveAndWait(page)).status, /^paradox:/);
  await page.locator('#picture svg').waitFor({ timeout: 60_000 });
  await page.getByLabel('Time limit (seconds)').fill('30');
  await page.evaluate(() => {
    document.activeElement.blur();
    window.scrollTo(0, 0);
  });
  fs.mkdirSync(path.join(ROOT, 'docs/img'), { recursive: true });
  await page.screenshot({ path: path.join(ROOT, 'docs/img/playground.png') });
  await page.close();
});
