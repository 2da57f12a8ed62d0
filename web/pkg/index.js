// gordian-wasm: the npm package's entry point. Loads gordian's WebAssembly module (built
// by web/build.sh from the Rust library) in Node or a browser, and wraps its string
// exports in functions that take and return plain objects. Every answer is the one the
// `gordian` CLI gives for the same instance (docs/playground.md); nothing is sent anywhere.

import init, {
  initSync,
  solve as rawSolve,
  systems as rawSystems,
  detect as rawDetect,
  version as rawVersion,
  last_panic as lastPanic,
} from './gordian_web.js';

let loading = null;
let loaded = false;

/**
 * Loads the WebAssembly module; call (and await) once before the other functions.
 * `source` is optional: the module's bytes, a `WebAssembly.Module`, or its URL. Without
 * it, Node reads `gordian_web_bg.wasm` beside this file and a browser fetches it.
 */
export async function load(source) {
  if (!loading) {
    loading = (async () => {
      if (source !== undefined) {
        if (source instanceof WebAssembly.Module || ArrayBuffer.isView(source) || source instanceof ArrayBuffer) {
          initSync({ module: source });
        } else {
          await init({ module_or_path: source });
        }
      } else if (typeof process !== 'undefined' && process.versions && process.versions.node) {
        const { readFile } = await import('node:fs/promises');
        initSync({ module: await readFile(new URL('./gordian_web_bg.wasm', import.meta.url)) });
      } else {
        await init();
      }
      loaded = true;
    })();
  }
  await loading;
}

function ready() {
  if (!loaded) {
    throw new Error('gordian-wasm: call `await load()` first');
  }
}

/**
 * An internal error of gordian (a bug): the module stopped. Its message is the Rust
 * panic's. Do not call the module again in this process or worker: start a new one.
 */
export class GordianPanic extends Error {
  constructor(message) {
    super(`gordian stopped on an internal error (a bug; please report it): ${message}`);
    this.name = 'GordianPanic';
  }
}

function guarded(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      throw new GordianPanic(lastPanic() || e.message);
    }
    throw e;
  }
}

/**
 * Solves one instance given as text. `options`: `system` ('ar', 'fft', 'lancer',
 * 'foeman', 'ff8'; default: recognised from `name`'s extension, else from the text),
 * `name` (the file name errors are located in), `timeoutMs`, `seed` (the reproducible
 * pick of a night), `results` (a night: also what each player learns, as
 * `gordian resolve FILE --results`). Returns the response object (see index.d.ts): `ok`, `status` (the
 * report's first line), `report`, `answer` (the CLI's `--json`), `dot`, ... or, for an
 * instance that cannot be answered, `ok: false` with `kind`, `status` and located `errors`.
 * Synchronous: in a browser, call it from a Web Worker.
 */
export function solve(text, options = {}) {
  ready();
  if (typeof text !== 'string') {
    throw new TypeError('gordian-wasm: solve(text, options): text must be a string');
  }
  const request = {
    text,
    system: options.system ?? null,
    name: options.name ?? null,
    timeout_ms: options.timeoutMs ?? null,
    seed: options.seed ?? null,
    results: options.results ?? false,
  };
  return JSON.parse(guarded(() => rawSolve(JSON.stringify(request))));
}

/** The systems gordian knows: `[{id, noun, extensions}]`. */
export function systems() {
  ready();
  return JSON.parse(rawSystems());
}

/** The id of the system `text` is for (by `name`'s extension, else by the text), or null. */
export function detect(text, name = 'instance') {
  ready();
  return guarded(() => rawDetect(name, text)) || null;
}

/** gordian's version. */
export function version() {
  ready();
  return rawVersion();
}
