// app.js: the behaviour of the gordian playground page.
// Owns: the editor (line numbers, error marks), the shipped-instance list, running a request
// in the Web Worker (worker.js) with Cancel and a time limit, showing the answer (status line,
// report, picture, Download JSON), the "What each player learns" checkbox (a night's
// `--results`), and share links (#system=..&name=..&results=1&z=1&text=<base64url>).
// Nothing here talks to a server other than the one this page came from (static files only).

// ---------------------------------------------------------------------------------------------
// Small helpers

const $ = (id) => document.getElementById(id);

/** The five systems, in the order the page lists them. */
const SYSTEMS = [
  { id: 'ar', label: '?AR mafia nights', ext: 'night' },
  { id: 'fft', label: 'FFT turn flow', ext: 'fft' },
  { id: 'lancer', label: 'Lancer events', ext: 'lancer' },
  { id: 'foeman', label: 'Foeman rounds', ext: 'foeman' },
  { id: 'ff8', label: 'FF8 card rules', ext: 'ff8' },
];
const systemLabel = (id) => (SYSTEMS.find((s) => s.id === id) || { label: id }).label;

/** Editor geometry: must match style.css (--line-height, --pad). */
const LINE_HEIGHT = 20;
const PAD = 8;

/** The page stops the worker this long after the time limit that the solver itself keeps. */
const graceMs = (limitMs) => Math.max(2000, limitMs / 10);

const els = {
  text: $('instance'),
  gutter: $('gutter'),
  marks: $('marks'),
  editorError: $('editor-error'),
  system: $('system'),
  name: $('name'),
  timeout: $('timeout'),
  results: $('results'),
  resolve: $('resolve'),
  cancel: $('cancel'),
  share: $('share'),
  shareRow: $('share-row'),
  shareUrl: $('share-url'),
  shareNote: $('share-note'),
  status: $('status'),
  meta: $('meta'),
  errors: $('errors'),
  errorList: $('error-list'),
  download: $('download'),
  downloadDot: $('download-dot'),
  picture: $('picture'),
  report: $('report'),
  answer: $('answer-json'),
  examples: $('examples'),
  examplesNote: $('examples-note'),
  openFile: $('open-file'),
  zoom: $('zoom'),
};

/**
 * Set the status line. `state` (idle | running | done | error | cancelled) goes into
 * data-state, and data-run counts finished runs, so that tests and scripts can wait for a
 * new answer without guessing from the text.
 */
function setStatus(text, state) {
  els.status.textContent = text;
  els.status.dataset.state = state;
  // The verdict (paradox, quasi-paradox, non-paradox, ...) colours the line; see style.css.
  els.status.dataset.verdict = state === 'done' ? text.split(':')[0] : '';
}

// ---------------------------------------------------------------------------------------------
// The editor: a plain <textarea> with a gutter of line numbers and an overlay for error marks.

let errorMarks = []; // [{line, column, message}] shown in the editor

function lineCount() {
  return els.text.value.split('\n').length;
}

function renderGutter() {
  const n = lineCount();
  const bad = new Map(errorMarks.map((e) => [e.line, e]));
  const frag = document.createDocumentFragment();
  for (let i = 1; i <= n; i++) {
    const div = document.createElement('div');
    div.dataset.line = String(i);
    div.textContent = String(i);
    if (bad.has(i)) {
      div.className = 'has-error';
      div.title = bad.get(i).message;
    }
    frag.append(div);
  }
  els.gutter.replaceChildren(frag);
  syncScroll();
}

/** Width of one character of the editor's monospace font, in px (measured once). */
let charWidth = 0;
function measureCharWidth() {
  const probe = document.createElement('span');
  probe.textContent = 'M'.repeat(100);
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre;font:' + getComputedStyle(els.text).font;
  document.body.append(probe);
  charWidth = probe.getBoundingClientRect().width / 100 || 8.4;
  probe.remove();
}

/** Visual width of a line in characters (tabs expand to the next multiple of 4). */
function visualLength(line) {
  let n = 0;
  for (const ch of line) n = ch === '\t' ? n + 4 - (n % 4) : n + 1;
  return n;
}

/**
 * Error marks: a tinted band behind each located line and its message written after the
 * line's text (so it never hides other lines), a marked line number in the gutter, and the
 * error at the caret spelled out under the editor (#editor-error, the textarea's description).
 */
function renderMarks() {
  if (!charWidth) measureCharWidth();
  const lines = els.text.value.split('\n');
  const frag = document.createDocumentFragment();
  const seen = new Set();
  for (const e of errorMarks) {
    const top = `${PAD + (e.line - 1) * LINE_HEIGHT}px`;
    const band = document.createElement('div');
    band.className = 'mark-line';
    band.style.top = top;
    frag.append(band);
    if (seen.has(e.line)) continue; // one message a line: the first error there
    seen.add(e.line);
    const msg = document.createElement('div');
    msg.className = 'mark-msg';
    msg.style.top = top;
    msg.style.left = `${PAD + (visualLength(lines[e.line - 1] || '') + 3) * charWidth}px`;
    msg.textContent = `◀ ${e.message}`;
    frag.append(msg);
  }
  els.marks.replaceChildren(frag);
  renderGutter();
  showCaretError();
}

/** The error shown under the editor: the one last jumped to. */
let bubbleError = null;
function showCaretError() {
  if (!bubbleError) {
    els.editorError.hidden = true;
    els.editorError.textContent = '';
    return;
  }
  const e = bubbleError;
  els.editorError.textContent = `Line ${e.line}, column ${e.column}: ${e.message}`;
  els.editorError.hidden = false;
}

function syncScroll() {
  els.gutter.scrollTop = els.text.scrollTop;
  els.marks.style.transform = `translate(${-els.text.scrollLeft}px, ${-els.text.scrollTop}px)`;
}

function clearErrorMarks() {
  errorMarks = [];
  bubbleError = null;
  renderMarks();
}

/** Character offset of a 1-based line and column in the editor's text (clamped). */
function offsetOf(line, column) {
  const lines = els.text.value.split('\n');
  let off = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length); i++) off += lines[i].length + 1;
  const here = lines[Math.min(line, lines.length) - 1] || '';
  // Columns count characters (Unicode scalar values); the textarea counts UTF-16 units.
  const chars = Array.from(here);
  const prefix = chars.slice(0, Math.max(0, column - 1)).join('');
  return off + Math.min(prefix.length, here.length);
}

/** Move the caret to an error, select the word there and scroll it into view. */
function goToError(e) {
  const start = offsetOf(e.line, e.column);
  const rest = els.text.value.slice(start);
  const word = rest.match(/^[^\s]*/)[0].length;
  els.text.focus();
  els.text.setSelectionRange(start, start + word);
  const want = (e.line - 1) * LINE_HEIGHT;
  if (want < els.text.scrollTop || want > els.text.scrollTop + els.text.clientHeight - 3 * LINE_HEIGHT) {
    els.text.scrollTop = Math.max(0, want - els.text.clientHeight / 3);
  }
  bubbleError = e;
  showCaretError();
  syncScroll();
}

function setEditorText(text) {
  els.text.value = text;
  els.text.scrollTop = 0;
  clearErrorMarks();
}

els.text.addEventListener('input', () => {
  // Line numbers shift while typing: old marks would point at the wrong lines.
  if (errorMarks.length) clearErrorMarks();
  else renderGutter();
});
els.text.addEventListener('scroll', syncScroll);
els.text.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
    ev.preventDefault();
    resolve();
  }
});

// ---------------------------------------------------------------------------------------------
// The worker: one run at a time. Cancel (or the time limit) terminates it and starts a fresh one.

let worker = null;
let nextId = 1;
let run = null; // the run in flight: {id, started, watchdog, ticker, limitMs}
let workerFailed = false; // the worker failed to load: start a new one before the next run
let detectWaiters = new Map(); // id -> resolve function, for {op: "detect"}

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = onWorkerMessage;
  workerFailed = false;
  worker.onerror = (ev) => {
    // The worker script or gordian_web.js failed to load: no answer will come from it.
    ev.preventDefault();
    workerFailed = true;
    if (run) {
      finishWithLocalError('error: the solver could not be loaded (is gordian_web.js next to this page?)');
    }
  };
}

function restartWorker() {
  if (worker) worker.terminate();
  for (const done of detectWaiters.values()) done('');
  detectWaiters.clear();
  startWorker();
}

function onWorkerMessage(ev) {
  const msg = ev.data;
  if (detectWaiters.has(msg.id)) {
    detectWaiters.get(msg.id)(msg.system || '');
    detectWaiters.delete(msg.id);
    return;
  }
  if (!run || msg.id !== run.id) return; // an answer to a run that was cancelled
  const elapsed = performance.now() - run.started;
  endRun();
  if (msg.broken) restartWorker();
  showResponse(msg.response, elapsed);
}

/** Ask the worker which system a text is in (used for share links). */
function detectSystem(name, text) {
  return new Promise((done) => {
    const id = nextId++;
    detectWaiters.set(id, done);
    worker.postMessage({ id, op: 'detect', name, text });
  });
}

function timeLimitMs() {
  const s = Number(els.timeout.value);
  return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : 30000;
}

/** The file name to send: what the user typed, else a default for the chosen system. */
function currentName() {
  const typed = els.name.value.trim();
  if (typed) return typed;
  const sys = SYSTEMS.find((s) => s.id === els.system.value);
  return sys ? `instance.${sys.ext}` : null;
}

function resolve() {
  if (run) return; // one run at a time
  if (workerFailed) restartWorker(); // try again: its error, if any, now ends this run
  clearResult();
  clearErrorMarks();
  const limitMs = timeLimitMs();
  const request = {
    text: els.text.value,
    system: els.system.value || null,
    name: currentName(),
    timeout_ms: limitMs,
    seed: null,
    // A night: also what each player learns (`gordian resolve FILE --results`); the
    // other systems have no results and ignore it.
    results: els.results.checked,
  };
  const id = nextId++;
  run = {
    id,
    limitMs,
    started: performance.now(),
    name: request.name,
    watchdog: setTimeout(() => stopRun('timeout'), limitMs + graceMs(limitMs)),
    ticker: setInterval(showElapsed, 500),
  };
  setStatus('Working: resolving… (Cancel stops it)', 'running');
  els.meta.textContent = '';
  els.resolve.disabled = true;
  els.cancel.disabled = false;
  worker.postMessage({ id, request });
}

function showElapsed() {
  if (!run) return;
  const s = (performance.now() - run.started) / 1000;
  els.meta.textContent = `Running for ${s.toFixed(0)} s of at most ${run.limitMs / 1000} s.`;
}

function endRun() {
  clearTimeout(run.watchdog);
  clearInterval(run.ticker);
  run = null;
  els.resolve.disabled = false;
  els.cancel.disabled = true;
}

/** Stop the run in flight: by the user (Cancel) or by the page's own time-limit watchdog. */
function stopRun(reason) {
  if (!run) return;
  const elapsed = (performance.now() - run.started) / 1000;
  const limit = run.limitMs / 1000;
  const hadFocus = document.activeElement === els.cancel;
  endRun();
  restartWorker();
  if (reason === 'cancelled') {
    setStatus(`cancelled: you stopped the run after ${elapsed.toFixed(1)} s`, 'cancelled');
    els.meta.textContent = 'Nothing was answered. Edit the instance or raise the time limit, then press Resolve again.';
  } else {
    setStatus(`error: time limit reached: no answer within ${limit} s`, 'error');
    els.meta.textContent = 'The page stopped the solver. Raise the time limit to let it run longer.';
  }
  bumpRun();
  if (hadFocus) els.resolve.focus(); // Cancel is now disabled: keep keyboard focus somewhere useful
}

function finishWithLocalError(status) {
  endRun();
  restartWorker();
  setStatus(status, 'error');
  bumpRun();
}

function bumpRun() {
  els.status.dataset.run = String(Number(els.status.dataset.run || 0) + 1);
}

els.resolve.addEventListener('click', resolve);
els.cancel.addEventListener('click', () => stopRun('cancelled'));
document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape' && run) stopRun('cancelled');
});

// ---------------------------------------------------------------------------------------------
// Showing an answer

let lastAnswer = null; // {name, answer, dot, system, text} of the last successful run

function clearResult() {
  lastAnswer = null;
  els.report.textContent = '';
  els.answer.textContent = '';
  els.answer.dataset.command = '';
  els.errors.hidden = true;
  els.errorList.replaceChildren();
  els.download.disabled = true;
  els.downloadDot.disabled = true;
  els.picture.replaceChildren(note('Resolve a night to see it drawn here.'));
  els.zoom.disabled = true;
}

function note(text) {
  const p = document.createElement('p');
  p.className = 'note';
  p.textContent = text;
  return p;
}

const KIND_HELP = {
  parse: 'The instance has a mistake: see the marked line in the editor.',
  input: 'The instance could not be read.',
  timeout: 'The solver ran out of time. Raise the time limit, or simplify the instance.',
  limit: 'The answer is too large for the page (a limit was hit).',
  disagree: 'The two engines disagree: this is a bug in gordian, please report the instance.',
};

function showResponse(resp, elapsedMs) {
  let report = resp.report || '';
  if (resp.kind === 'disagree' && resp.answers) {
    // Both engines' answers, so that the bug can be reported with them.
    report += `\n\nThe engines' answers:\n${JSON.stringify(resp.answers, null, 2)}\n`;
  }
  els.report.textContent = report;
  if (resp.ok) {
    setStatus(resp.status, 'done');
    const name = currentNameFor(resp);
    const command = (resp.command || '').replace(/\bFILE\b/g, name);
    els.answer.textContent = JSON.stringify(resp.answer, null, 2);
    els.answer.dataset.command = resp.command || '';
    const ms = typeof resp.ms === 'number' ? resp.ms : elapsedMs;
    els.meta.textContent = [
      systemLabel(resp.system),
      `answered in ${formatMs(ms)}`,
      resp.cross_checked ? 'both engines agree' : 'answered by one engine (not cross-checked)',
      command ? `same answer from: ${command}` : '',
    ].filter(Boolean).join(' · ');
    lastAnswer = { name, answer: resp.answer, dot: resp.dot, system: resp.system, text: els.text.value };
    els.download.disabled = false;
    els.downloadDot.disabled = !resp.dot;
    drawPicture(resp.dot, lastAnswer);
  } else {
    setStatus(resp.status || 'error: no answer', 'error');
    els.meta.textContent = [resp.system ? systemLabel(resp.system) : '', KIND_HELP[resp.kind] || '']
      .filter(Boolean).join(' · ');
    showErrors(resp.errors || []);
    els.picture.replaceChildren(note('No picture: there is no answer.'));
  }
  bumpRun();
}

function currentNameFor(resp) {
  const n = run ? run.name : currentName();
  if (n) return n;
  const sys = SYSTEMS.find((s) => s.id === resp.system);
  return `instance.${sys ? sys.ext : 'txt'}`;
}

function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Located errors: marked in the editor, listed under the status line, caret on the first. */
function showErrors(errors) {
  const located = errors.filter((e) => Number.isInteger(e.line) && e.line >= 1);
  if (!errors.length) return;
  els.errors.hidden = false;
  const items = errors.map((e) => {
    const li = document.createElement('li');
    if (located.includes(e)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'link';
      b.textContent = `Line ${e.line}, column ${e.column}`;
      b.addEventListener('click', () => goToError(e));
      li.append(b, `: ${e.message}`);
    } else {
      li.textContent = e.message;
    }
    return li;
  });
  els.errorList.replaceChildren(...items);
  errorMarks = located;
  renderMarks();
  if (located.length) goToError(located[0]);
}

// The picture: Graphviz compiled to WebAssembly (vendor/viz.js, copied by web/vendor.sh).
// The page works without it: then it says so and offers the DOT text as a download.
let vizPromise = null;
function loadViz() {
  if (!vizPromise) {
    vizPromise = import('./vendor/viz.js')
      .then((m) => m.instance())
      .catch(() => null);
  }
  return vizPromise;
}

async function drawPicture(dot, forAnswer) {
  if (!dot) {
    els.picture.replaceChildren(note('No picture for this kind of instance.'));
    return;
  }
  if (dot.length > 400000) {
    els.picture.replaceChildren(note('This night is too big to draw here; “Download picture (DOT)” saves it for Graphviz.'));
    return;
  }
  els.picture.replaceChildren(note('Drawing…'));
  const viz = await loadViz();
  if (lastAnswer !== forAnswer) return; // a newer run replaced this one
  if (!viz) {
    els.picture.replaceChildren(note('The picture is not available in this copy of the page (vendor/viz.js is missing); “Download picture (DOT)” saves it for Graphviz.'));
    return;
  }
  try {
    const svg = viz.renderSVGElement(dot);
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'Picture of the night under one outcome');
    els.picture.replaceChildren(svg);
    fitToContents(svg);
    els.zoom.disabled = false;
  } catch (err) {
    els.picture.replaceChildren(note('The picture could not be drawn: ' + String(err && err.message || err)));
  }
}

// Graphviz sizes each label by its own estimate of the font; the browser draws it with
// the font it has, often wider, so a long label (the legend) could overflow its box and
// the picture's edge, and be cut off. Once drawn, the picture's frame is widened to what
// is really drawn, plus a margin, at the same scale (1 unit = 1 pt, as Graphviz sets it).
function fitToContents(svg) {
  const box = svg.getBBox();
  const margin = 4;
  const x = box.x - margin;
  const y = box.y - margin;
  const w = box.width + 2 * margin;
  const h = box.height + 2 * margin;
  svg.setAttribute('viewBox', `${x} ${y} ${w} ${h}`);
  svg.setAttribute('width', `${w}pt`);
  svg.setAttribute('height', `${h}pt`);
}

// "Actual size" toggles the picture between fitting the panel and Graphviz's own size.
els.zoom.addEventListener('click', () => {
  const actual = els.picture.classList.toggle('actual');
  els.zoom.setAttribute('aria-pressed', String(actual));
});

// Downloads: the answer as <name>.json (e.g. deflect-chain.night.json), the picture as <name>.dot.
function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
const baseName = (n) => n.split(/[\\/]/).pop() || 'instance';
els.download.addEventListener('click', () => {
  if (!lastAnswer) return;
  download(`${baseName(lastAnswer.name)}.json`, JSON.stringify(lastAnswer.answer, null, 2) + '\n', 'application/json');
});
els.downloadDot.addEventListener('click', () => {
  if (!lastAnswer || !lastAnswer.dot) return;
  download(`${baseName(lastAnswer.name)}.dot`, lastAnswer.dot, 'text/vnd.graphviz');
});

// ---------------------------------------------------------------------------------------------
// Share links: the instance travels in the URL fragment, which browsers never send to servers.
//   #system=ar&name=x.night&results=1&z=1&text=<base64url>   z=1: the bytes are deflate-raw
//   compressed; results=1: "What each player learns" is ticked

function toBase64Url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s) {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function throughStream(bytes, stream) {
  const piped = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

async function shareFragment() {
  const text = els.text.value;
  const plain = new TextEncoder().encode(text);
  let payload = plain;
  let compressed = false;
  if (typeof CompressionStream === 'function') {
    try {
      const z = await throughStream(plain, new CompressionStream('deflate-raw'));
      if (z.length < plain.length) {
        payload = z;
        compressed = true;
      }
    } catch { /* keep it plain */ }
  }
  let system = els.system.value;
  if (!system && lastAnswer && lastAnswer.text === text) system = lastAnswer.system;
  if (!system) system = await detectSystem(currentName() || '', text);
  const params = new URLSearchParams();
  if (system) params.set('system', system);
  const name = els.name.value.trim();
  if (name) params.set('name', name);
  if (els.results.checked) params.set('results', '1');
  if (compressed) params.set('z', '1');
  params.set('text', toBase64Url(payload));
  return params.toString();
}

els.share.addEventListener('click', async () => {
  const fragment = await shareFragment();
  const url = `${location.origin}${location.pathname}#${fragment}`;
  history.replaceState(null, '', url); // the address bar now holds the link too
  lastLoadedHash = location.hash;
  els.shareRow.hidden = false;
  els.shareUrl.value = url;
  els.shareUrl.focus();
  els.shareUrl.select();
  let copied = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(url);
      copied = true;
    }
  } catch { /* no permission: the user copies it */ }
  els.shareNote.textContent = copied
    ? 'Copied. Anyone who opens it sees this instance; it is not stored anywhere.'
    : 'Copy this link (Ctrl+C). Anyone who opens it sees this instance; it is not stored anywhere.';
});

/** Load the instance from the URL fragment, if there is one. */
let lastLoadedHash = '';
async function loadFromFragment() {
  if (location.hash === lastLoadedHash) return false;
  lastLoadedHash = location.hash;
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has('text')) return false;
  try {
    let bytes = fromBase64Url(params.get('text'));
    if (params.get('z') === '1') bytes = await throughStream(bytes, new DecompressionStream('deflate-raw'));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const system = params.get('system') || '';
    els.system.value = SYSTEMS.some((s) => s.id === system) ? system : '';
    const sys = SYSTEMS.find((s) => s.id === system);
    els.name.value = params.get('name') || (sys ? `shared.${sys.ext}` : 'shared.night');
    els.results.checked = params.get('results') === '1';
    setEditorText(text);
    clearResult();
    setStatus('Loaded the instance from the link: press Resolve.', 'idle');
    return true;
  } catch (err) {
    setStatus('error: this link is damaged and could not be read', 'error');
    return false;
  }
}
window.addEventListener('hashchange', loadFromFragment);

// ---------------------------------------------------------------------------------------------
// Shipped instances (instances.json, made by web/build.sh) and opening a local file

let instances = [];

async function loadInstanceList() {
  try {
    const res = await fetch('instances.json');
    if (!res.ok) throw new Error(res.statusText);
    instances = await res.json();
  } catch {
    els.examplesNote.textContent = 'The list of shipped instances is missing from this copy of the page.';
    return;
  }
  els.examplesNote.remove();
  for (const sys of SYSTEMS) {
    const mine = instances.map((inst, i) => ({ inst, i })).filter(({ inst }) => inst.system === sys.id);
    if (!mine.length) continue;
    const details = document.createElement('details');
    details.open = true;
    const summary = document.createElement('summary');
    summary.textContent = `${sys.label} (${mine.length})`;
    const ul = document.createElement('ul');
    for (const { inst, i } of mine) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'example';
      b.textContent = inst.name;
      b.dataset.index = String(i);
      b.dataset.system = inst.system;
      b.title = inst.path;
      b.addEventListener('click', () => loadShipped(i));
      li.append(b);
      ul.append(li);
    }
    details.append(summary, ul);
    els.examples.append(details);
  }
}

function loadShipped(i) {
  const inst = instances[i];
  for (const b of els.examples.querySelectorAll('button[aria-current]')) b.removeAttribute('aria-current');
  const b = els.examples.querySelector(`button[data-index="${i}"]`);
  if (b) b.setAttribute('aria-current', 'true');
  els.system.value = ''; // the file name's ending tells the system
  els.name.value = inst.name;
  setEditorText(inst.text);
  clearResult();
  setStatus(`Loaded ${inst.name}: press Resolve.`, 'idle');
}

els.openFile.addEventListener('change', async () => {
  const file = els.openFile.files && els.openFile.files[0];
  if (!file) return;
  els.system.value = '';
  els.name.value = file.name;
  setEditorText(await file.text());
  clearResult();
  setStatus(`Opened ${file.name}: press Resolve.`, 'idle');
  els.openFile.value = '';
});

// ---------------------------------------------------------------------------------------------
// Start

const STARTER = `# A small night: two roleblockers block each other, the mafia kills, the doctor protects.
# Pick a shipped instance on the left, or type your own: one effect a line.
players: R1 R2 M D V
R1 block R2
R2 block R1
M kill V
D protect V
`;

startWorker();
clearResult();
if (!(await loadFromFragment())) {
  setEditorText(STARTER);
}
renderGutter();
loadInstanceList();
