// worker.js: the module Web Worker that runs the gordian solver (WebAssembly) off the page's thread.
// Owns: loading gordian_web.js / gordian_web_bg.wasm once, and answering messages.
//
// Protocol (the page, app.js, is the only sender):
//   in:  {id, request}          request = the object given to solve() (built in app.js)
//   out: {id, response, broken}  response = the parsed JSON that solve() returned;
//                                broken = true when the module threw (start a fresh worker)
//   in:  {id, op: "detect", name, text}  ->  out: {id, system}   ("" when nothing recognises it)
// solve() is synchronous and cannot be interrupted from inside: the page cancels a run by
// terminating this whole worker and starting a fresh one.

import init, * as gordian from './gordian_web.js';

// Load the WebAssembly module once; every message waits for it.
const ready = init();

// A response in the same shape as solve()'s errors, for failures outside the solver.
function failure(message) {
  return {
    ok: false,
    kind: 'input',
    system: null,
    status: 'error: ' + message,
    report: 'error: ' + message,
    errors: [],
  };
}

self.onmessage = async (event) => {
  const { id } = event.data;
  try {
    await ready;
  } catch (err) {
    self.postMessage({ id, response: failure('the solver could not be loaded (' + String(err && err.message || err) + ')') });
    return;
  }
  if (event.data.op === 'detect') {
    let system = '';
    try { system = gordian.detect(event.data.name || '', event.data.text || ''); } catch { /* unknown */ }
    self.postMessage({ id, system });
    return;
  }
  let response;
  let broken = false;
  try {
    response = JSON.parse(gordian.solve(JSON.stringify(event.data.request)));
  } catch (err) {
    // A panic inside the module (it aborts: the module is unusable afterwards), or output
    // that is not JSON: report it as one line, and tell the page to start a fresh worker.
    // last_panic() keeps the panic's message, where the module has it.
    let why = String(err && err.message || err);
    try {
      const panic = typeof gordian.last_panic === 'function' ? gordian.last_panic() : '';
      if (panic) why = panic;
    } catch { /* the module is gone */ }
    response = failure('the solver stopped unexpectedly (a bug in gordian): ' + why.split('\n')[0]);
    response.report = 'error: the solver stopped unexpectedly (a bug in gordian): ' + why;
    broken = true;
  }
  self.postMessage({ id, response, broken });
};
