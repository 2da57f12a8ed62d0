// web/tests/harness.mjs: what the browser tests share (not a test file itself).
// Owns: a static file server over web/dist on a free localhost port (correct MIME types),
// headless Debian Chromium through playwright-core (never a downloaded browser), the native
// CLI ($GORDIAN_BIN) run the way the page's `command` field says, and page helpers.
//
// Environment:
//   GORDIAN_BIN        the native CLI (default: target/release/gordian under the repo root)
//   GORDIAN_WEB_DIST   the folder to serve (default: web/dist, made by `bash web/build.sh`)
//   GORDIAN_WEB_URL    test an already running copy of the page instead of serving one
//   CHROMIUM           the browser (default: /usr/bin/chromium)

import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEB = path.resolve(here, '..');
export const ROOT = path.resolve(WEB, '..');
export const BIN = path.resolve(ROOT, process.env.GORDIAN_BIN || 'target/release/gordian');
export const DIST = path.resolve(ROOT, process.env.GORDIAN_WEB_DIST || 'web/dist');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** Serve `dir` on 127.0.0.1 at a free port; resolves to {url, close}. */
export function serveStatic(dir) {
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    let rel = decodeURIComponent(pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(dir, path.normalize(rel));
    if (!file.startsWith(dir + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    fs.readFile(file, (err, body) => {
      if (err) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, {
        'content-type': MIME[path.extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
      });
      res.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** The page to test: GORDIAN_WEB_URL, or web/dist served here. */
export async function startSite() {
  if (process.env.GORDIAN_WEB_URL) {
    return { url: process.env.GORDIAN_WEB_URL.replace(/\/?$/, '/'), close: async () => {} };
  }
  for (const f of ['index.html', 'gordian_web.js', 'gordian_web_bg.wasm', 'instances.json']) {
    if (!fs.existsSync(path.join(DIST, f))) {
      throw new Error(`${path.join(DIST, f)} is missing: run 'bash web/build.sh' first`);
    }
  }
  return serveStatic(DIST);
}

/** Headless Chromium with a fresh profile; resolves to {context, close}. */
export async function startBrowser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gordian-web-test-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1440, height: 1000 },
    acceptDownloads: true,
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const run = promisify(execFile);

/** Run the native CLI; resolves to {stdout, stderr, code} (a non-zero exit is not thrown). */
export async function cli(args) {
  try {
    const { stdout, stderr } = await run(BIN, args, { maxBuffer: 1 << 30, cwd: ROOT });
    return { stdout, stderr, code: 0 };
  } catch (err) {
    if (typeof err.code !== 'number') throw err;
    return { stdout: err.stdout, stderr: err.stderr, code: err.code };
  }
}

/**
 * The CLI's answer for `file` by the page's `command` field (e.g. `gordian resolve FILE
 * --explain --json`, or `gordian check FILE --json`, whose answer is files[0].answer).
 */
export async function cliAnswer(command, file) {
  const words = command.trim().split(/\s+/);
  if (words[0] !== 'gordian') throw new Error(`the page's command does not start with gordian: ${command}`);
  if (!words.includes('FILE')) throw new Error(`the page's command has no FILE: ${command}`);
  const args = words.slice(1).map((w) => (w === 'FILE' ? file : w));
  const out = await cli(args);
  if (out.code !== 0) throw new Error(`${command} exited ${out.code}: ${out.stderr}`);
  const json = JSON.parse(out.stdout);
  return args[0] === 'check' ? json.files[0].answer : json;
}

/** The status line element of the page. */
export const status = (page) => page.getByRole('status');

/** Click Resolve and wait for the page to finish that run (data-run on the status counts runs). */
export async function resolveAndWait(page, timeout = 300_000) {
  const before = Number((await status(page).getAttribute('data-run')) || 0);
  await page.getByRole('button', { name: 'Resolve', exact: true }).click();
  await page.waitForFunction(
    (n) => Number(document.querySelector('[role="status"]').dataset.run || 0) > n,
    before,
    { timeout },
  );
  return {
    status: await status(page).textContent(),
    state: await status(page).getAttribute('data-state'),
  };
}

/** The answer the page shows (parsed) and its CLI command. */
export async function pageAnswer(page) {
  const el = page.locator('#answer-json');
  return { answer: JSON.parse(await el.textContent()), command: await el.getAttribute('data-command') };
}

/** Open the page and wait until its shipped-instance list is there. */
export async function openPage(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('button.example').first().waitFor({ timeout: 60_000 });
  return page;
}

/** Load shipped instance `index` (of instances.json) through the page's list. */
export async function pickInstance(page, index) {
  await page.locator(`button.example[data-index="${index}"]`).click();
}
