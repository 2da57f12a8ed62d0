// Types of gordian-wasm (index.js). The answer objects are described by the JSON Schemas
// of `gordian schema answer --system S` (schemas/ in the repository).

/** A system gordian knows. */
export interface SystemInfo {
  /** 'ar' (mafia nights), 'fft', 'lancer', 'foeman', 'ff8'. */
  id: string;
  /** What an instance is called: 'night', 'scenario', 'round'. */
  noun: string;
  /** File extensions (without the dot) that select it. */
  extensions: string[];
}

export interface SolveOptions {
  /** The system; default: recognised from `name`'s extension, else from the text. */
  system?: 'ar' | 'fft' | 'lancer' | 'foeman' | 'ff8' | null;
  /** The file name errors are located in (default 'instance'). */
  name?: string | null;
  /** Give up after this many milliseconds (a response with kind 'timeout'). */
  timeoutMs?: number | null;
  /** Seed of the reproducible random pick of a night's outcome. */
  seed?: number | null;
  /** A night: also say what each player learns (`gordian resolve FILE --results`: the
   * report's `what each player learns:` lines and the answer's `results`). */
  results?: boolean;
}

/** An answered instance. */
export interface Solved {
  ok: true;
  system: string;
  /** The report's first line, e.g. 'paradox: no resolution; ...'. */
  status: string;
  /** The whole human report, as the CLI prints it. */
  report: string;
  /** The answer, as the CLI's `--json` prints it (see `command`). */
  answer: unknown;
  /** Graphviz DOT of the night under one outcome (nights only), or null. */
  dot: string | null;
  /** The CLI command whose output `report` and `answer` are, with FILE for the file. */
  command: string;
  /** Whether two engines answered and agreed. */
  cross_checked: boolean;
  /** Milliseconds spent. */
  ms: number;
}

/** A located error in the instance text (1-based). */
export interface LocatedError {
  line: number;
  column: number;
  message: string;
}

/** An instance gordian could not answer. */
export interface Failed {
  ok: false;
  /** 'parse' (located errors), 'timeout', 'limit' (memory bound), 'disagree' (a bug), 'input'. */
  kind: 'parse' | 'timeout' | 'limit' | 'disagree' | 'input';
  system: string | null;
  /** The message's first line, starting with 'error:'. */
  status: string;
  /** The whole message, as the CLI prints it on standard error. */
  report: string;
  errors: LocatedError[];
  /** For 'disagree': every engine's answer. */
  answers?: Record<string, unknown>;
  ms: number;
}

export type Response = Solved | Failed;

/** Loads the WebAssembly module; await it once before the other functions. */
export function load(source?: BufferSource | WebAssembly.Module | URL | string): Promise<void>;
/** Solves one instance given as text (synchronous: use a Web Worker in browsers). */
export function solve(text: string, options?: SolveOptions): Response;
/** The systems gordian knows. */
export function systems(): SystemInfo[];
/** The id of the system `text` is for, or null. */
export function detect(text: string, name?: string): string | null;
/** gordian's version. */
export function version(): string;

/** Thrown when gordian stops on an internal error (a bug); start a fresh module. */
export class GordianPanic extends Error {}
