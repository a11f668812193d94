// The program's binding namespaces in the child (`tools` and the like): one function per member that
// captures the call site, checks and serialises the arguments, and sends a `call` frame within the
// in-flight bounds (docs/control-channel.md, "Hot path"); a `result` frame settles the pending call,
// and a failure becomes an error thrown at the program's own call site.

import type { JsonValue } from '../../json.js';
import type { ChildBinding, ResultFrame } from '../../ptc-runtime-process/frames.js';

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const stringify: typeof import('./primordials.js').stringify;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const captureStackTrace: typeof import('./primordials.js').captureStackTrace;
declare const errorConstructor: typeof import('./primordials.js').errorConstructor;
declare const promiseConstructor: typeof import('./primordials.js').promiseConstructor;
declare const getOwnPropertyDescriptor: typeof import('./primordials.js').getOwnPropertyDescriptor;
declare const defineProperty: typeof import('./primordials.js').defineProperty;
declare const writeCall: typeof import('./channel.js').writeCall;
declare const toJsonText: typeof import('./json-text.js').toJsonText;
declare const PROGRAM_FILENAME: typeof import('./run-program.js').PROGRAM_FILENAME;
declare let limits: typeof import('./bootstrap.js').limits;
declare let finished: typeof import('./bootstrap.js').finished;

/** One member of a binding namespace, with the fixed text of its call frames built once. */
interface Member {
  readonly binding: ChildBinding;
  readonly name: string;
  /** How messages name it: `tools.read` or `tools["my-read"]`. */
  readonly label: string;
  /** The frame up to the arguments: `{"type":"call","global":…,"member":…,"args":`. */
  readonly head: string;
  /** Bytes of `head` plus the id, the closing brace and the LF, at most. */
  readonly fixedBytes: number;
  /** The function the program calls; stack capture starts below it. */
  fn: (args?: unknown) => Promise<JsonValue | undefined>;
}

/**
 * Where the program made a call. Error.captureStackTrace records the frames; V8 formats them only
 * when `stack` is read, which happens only if the call fails (docs/control-channel.md, "Hot path").
 */
interface CallSite {
  stack?: unknown;
}

interface Call {
  readonly member: Member;
  readonly resolve: (value: JsonValue | undefined) => void;
  readonly reject: (error: unknown) => void;
  readonly site: CallSite;
  readonly bytes: number;
  /** The arguments' JSON until the frame is written. */
  args: string;
}

type ErrorConstructorLike = new (message?: string, member?: string) => Error;

let nextCallId = 1;
let pendingArgsBytes = 0;
const pendingCalls = new Map<number, Call>();
const waitingCalls: Call[] = [];
const errorClasses = new Map<string, ErrorConstructorLike>();
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `,"id":` + up to 16 digits + `}` + LF. */
const ID_TAIL_BYTES = 24;

function makeErrorClass(name: string, memberNameProperty: string): ErrorConstructorLike {
  const created = class extends Error {
    constructor(message?: string, member?: string) {
      super(message);
      if (member !== undefined) {
        defineProperty(this, memberNameProperty, { value: member, enumerable: true, writable: true, configurable: true });
      }
    }
  };
  defineProperty(created, 'name', { value: name });
  defineProperty(created.prototype, 'name', { value: name, writable: true, configurable: true });
  return created;
}

/** Only the program's frames of a captured call site: where the program made the call. */
function programFrames(site: CallSite): string {
  try {
    // Reading `stack` formats it now, through whatever Error.prepareStackTrace the program installed.
    const stack = site.stack;
    if (typeof stack !== 'string') return '';
    return stack
      .split('\n')
      .filter((line) => line.includes(PROGRAM_FILENAME))
      .join('\n');
  } catch {
    return '';
  }
}

function callError(member: Member, message: string, site: CallSite, code?: string): Error {
  const errorClass = member.binding.errorClass;
  const ctor = errorClass === null ? undefined : errorClasses.get(errorClass.name);
  const error = ctor === undefined ? new Error(message) : new ctor(message, member.name);
  if (code !== undefined && !(errorClass !== null && errorClass.memberNameProperty === 'code')) {
    defineProperty(error, 'code', { value: code, enumerable: true, writable: true, configurable: true });
  }
  const frames = programFrames(site);
  defineProperty(error, 'stack', {
    value: `${error.name}: ${message}${frames === '' ? '' : '\n' + frames}`,
    writable: true,
    configurable: true,
  });
  return error;
}

/**
 * Where the program called `fn`, its frames recorded but not formatted. Most of V8's cost here is
 * decoding each optimised frame it records (docs/control-channel.md, "Hot path"), so a call with
 * at most one argument, as a program writes it (`tools.read({ path })`), records one frame: the
 * call site itself, the limit lowered for the capture and the program's own value put back. More
 * arguments are a built-in's callback (`paths.map(tools.read)`), whose frame comes before the
 * program's: those keep the program's limit. The limit is read and set as a data property only: a
 * program that made it an accessor or read-only gets the capture V8 does for it, and none of its
 * code runs here.
 */
function captureCallSite(fn: Member['fn'], argumentCount: number): CallSite {
  const site: CallSite = {};
  const limit = argumentCount > 1 ? undefined : getOwnPropertyDescriptor(errorConstructor, 'stackTraceLimit');
  if (limit === undefined || limit.writable !== true || typeof limit.value !== 'number' || !(limit.value > 1)) {
    captureStackTrace(site, fn);
    return site;
  }
  errorConstructor.stackTraceLimit = 1;
  try {
    captureStackTrace(site, fn);
  } finally {
    errorConstructor.stackTraceLimit = limit.value as number;
  }
  return site;
}

function callBinding(member: Member, args: unknown, site: CallSite): Promise<JsonValue | undefined> {
  if (finished) return new Promise(() => undefined);
  // Arguments cross losslessly or not at all: JSON.stringify would silently drop undefined, turn NaN
  // into null and Dates into strings. An omitted argument is an empty object.
  const json = args === undefined ? '{}' : toJsonText(args);
  if (typeof json !== 'string') {
    const problem = json;
    const at = problem.path === '' ? 'the argument itself' : `at ${problem.path}`;
    const message = `Invalid arguments for ${member.label}: ${at}: ${problem.reason}. Pass plain JSON values.`;
    return Promise.reject(callError(member, message, site, 'INVALID_ARGS'));
  }
  // Exact bytes: the host counts the same for its in-flight bound.
  const bytes = member.fixedBytes + byteLength(json, 'utf8');
  if (bytes > limits.maxFrameBytes) {
    return Promise.reject(
      callError(member, `the argument of ${member.label} is ${bytes} bytes; the limit is ${limits.maxFrameBytes} bytes`, site),
    );
  }
  const promise = new promiseConstructor<JsonValue | undefined>(takeSettlers);
  const call: Call = { member, resolve: takenResolve, reject: takenReject, site, bytes, args: json };
  try {
    if (waitingCalls.length === 0 && hasRoomFor(call)) sendCall(call);
    else waitingCalls.push(call);
  } catch (error) {
    // As a throw inside a Promise executor would: the call's promise rejects.
    call.reject(error);
  }
  return promise;
}

// One executor for every call's Promise, handing its settle functions over through these two, so a
// call allocates no executor closure (docs/control-channel.md, "Hot path").
let takenResolve: (value: JsonValue | undefined) => void = () => undefined;
let takenReject: (error: unknown) => void = () => undefined;
function takeSettlers(resolve: (value: JsonValue | undefined) => void, reject: (error: unknown) => void): void {
  takenResolve = resolve;
  takenReject = reject;
}

/** Whether the pending count and bytes allow one more call (one always goes when none is pending). */
function hasRoomFor(call: Call): boolean {
  if (pendingCalls.size >= limits.maxPendingCalls) return false;
  return pendingCalls.size === 0 || pendingArgsBytes + call.bytes <= limits.maxPendingArgsBytes;
}

function sendCall(call: Call): void {
  const id = nextCallId++;
  pendingCalls.set(id, call);
  pendingArgsBytes += call.bytes;
  const line = `${call.member.head}${call.args},"id":${id}}`;
  call.args = '';
  // Written at once when it is the only call in flight, else batched (writeCall, channel.ts).
  writeCall(line, pendingCalls.size === 1);
}

/** Sends queued calls in order while there is room. */
function sendWaitingCalls(): void {
  while (waitingCalls.length > 0 && !finished) {
    const next = waitingCalls[0] as Call;
    if (!hasRoomFor(next)) return;
    waitingCalls.shift();
    sendCall(next);
  }
}

export function onResult(frame: ResultFrame): void {
  const call = pendingCalls.get(frame.id);
  if (call === undefined) return;
  pendingCalls.delete(frame.id);
  pendingArgsBytes -= call.bytes;
  if (frame.ok) call.resolve(frame.value);
  else call.reject(callError(call.member, frame.error.message, call.site, frame.error.code));
  if (waitingCalls.length > 0) sendWaitingCalls();
}

export function installBindings(bindings: readonly ChildBinding[]): void {
  for (const binding of bindings) {
    if (binding.errorClass !== null && !errorClasses.has(binding.errorClass.name)) {
      const ctor = makeErrorClass(binding.errorClass.name, binding.errorClass.memberNameProperty);
      errorClasses.set(binding.errorClass.name, ctor);
      defineProperty(globalThis, binding.errorClass.name, { value: ctor, writable: true, configurable: true });
    }
    // A null-prototype object: any member name, "__proto__" and "constructor" included, is an own member.
    const namespace = Object.create(null) as Record<string, unknown>;
    const globalJson = stringify(binding.global);
    for (const name of binding.members) {
      const head = `{"type":"call","global":${globalJson},"member":${stringify(name)},"args":`;
      const member: Member = {
        binding,
        name,
        label: IDENTIFIER.test(name) ? `${binding.global}.${name}` : `${binding.global}[${stringify(name)}]`,
        head,
        fixedBytes: byteLength(head, 'utf8') + ID_TAIL_BYTES,
        // A method: `arguments` is counted, and like an arrow it has no prototype and is no constructor.
        fn(args?: unknown) {
          return callBinding(member, args, captureCallSite(member.fn, arguments.length));
        },
      };
      defineProperty(member.fn, 'name', { value: name });
      defineProperty(namespace, name, { value: member.fn, enumerable: true, writable: false, configurable: false });
    }
    Object.freeze(namespace);
    defineProperty(globalThis, binding.global, { value: namespace, writable: true, configurable: true });
  }
}

/** Ids start at 1 again: only after the warm-up, whose call the host never saw (bootstrap.ts). */
export function restartCallIds(): void {
  nextCallId = 1;
}

/** Forgets the pending and waiting calls, for the next program of a kept process (child/in-memory.ts). */
export function resetCalls(): void {
  pendingArgsBytes = 0;
  pendingCalls.clear();
  waitingCalls.length = 0;
}
