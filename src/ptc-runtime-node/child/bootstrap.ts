// The child side of the Node runtime. The host feeds this script to `node --input-type=commonjs -`
// on stdin (stripped with amaro when running from source, compiled by tsc in dist), so it must use
// erasable TypeScript only and load nothing but Node built-ins (with require: a CommonJS script is
// ready sooner than an ES module, docs/control-channel.md "Hot path") and import only types. It
// announces `ready` on fd 3, waits for one `run` frame, installs the program's globals, runs the
// program once and reports `done`; the host then kills the process (or, in in-memory mode, may send
// the next program: child/in-memory.ts). It trusts the host's frames; the host trusts nothing here.

'use strict';

const { Console } = require('node:console') as typeof import('node:console');
const { writeSync } = require('node:fs') as typeof import('node:fs');
const { createRequire } = require('node:module') as typeof import('node:module');
const { Socket } = require('node:net') as typeof import('node:net');
const { join } = require('node:path') as typeof import('node:path');
const { Writable } = require('node:stream') as typeof import('node:stream');
const { inspect, types } = require('node:util') as typeof import('node:util');
const vm = require('node:vm') as typeof import('node:vm');
import type { JsonValue } from '../../json.js';
import type { ChildBinding, ChildErrorCode, ChildLimits, HostFrame, ResultFrame, RunFrame } from '../../ptc-runtime-process/frames.js';
import type { KeptRunHooks, KeptRuns } from './in-memory.js';

/** In-memory mode's child side, appended to this script by bootstrap-source.ts (child/in-memory.ts). */
declare function createKeptRuns(hooks: KeptRunHooks): KeptRuns;

// Taken before the program runs, so a program replacing these cannot reroute the bootstrap's own work.
// The frames are built from these alone: no program-controlled toJSON, getter, Proxy trap or prototype
// method ever runs while the bootstrap serialises (docs/control-channel.md, "The child's side").
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const byteLength = Buffer.byteLength;
const exitProcess = process.exit.bind(process);
const nextTick = process.nextTick;
const captureStackTrace = Error.captureStackTrace;
const getPrototypeOf = Object.getPrototypeOf;
const objectPrototype = Object.prototype;
const arrayPrototype = Array.prototype;
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const objectKeys = Object.keys;
const hasOwn = Object.hasOwn;
const isArray = Array.isArray;
const isFiniteNumber = Number.isFinite;
const isProxy = types.isProxy;
const uncurry = <A extends unknown[], R>(method: (...args: A) => R): ((self: unknown, ...args: A) => R) =>
  Function.prototype.call.bind(method) as (self: unknown, ...args: A) => R;
const stringSlice = uncurry(String.prototype.slice);
const stringReplaceAll = uncurry(String.prototype.replaceAll as (search: string, replacement: string) => string);
const charCodeAt = uncurry(String.prototype.charCodeAt);
const regexpExec = uncurry(RegExp.prototype.exec);

// Lets the program use `await import(...)`. Read now: the access emits an ExperimentalWarning on Node
// 20, which must reach the real stderr rather than the program's captured output. Missing before 20.12.
const dynamicImport = (vm as unknown as { constants?: { USE_MAIN_CONTEXT_DEFAULT_LOADER?: unknown } }).constants
  ?.USE_MAIN_CONTEXT_DEFAULT_LOADER as import('node:vm').ScriptOptions['importModuleDynamically'];

const PROGRAM_FILENAME = 'program.ts';
const PROGRAM_LINE_OFFSET = -1;

const CHANNEL_FD = 3;
const LF = 0x0a;
/** One read of the channel at most; a longer frame arrives in several reads. */
const READ_BUFFER_BYTES = 64 * 1024;

const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
// `onread` hands each read to onChannelRead directly, without the Readable stream's buffering,
// events and string decoder (docs/control-channel.md, "Hot path"); the end of the channel still
// comes as the stream's 'end'. The constructor takes it as net.connect() does (its type lists it
// only for connect).
const channelOptions: import('node:net').SocketConstructorOpts & { onread: import('node:net').OnReadOpts } = {
  fd: CHANNEL_FD,
  readable: true,
  writable: true,
  onread: {
    buffer: readBuffer,
    callback: (bytes: number) => {
      onChannelRead(bytes, readBuffer);
      return true;
    },
  },
};
const channel = new Socket(channelOptions);
let limits: ChildLimits = {
  maxOutputBytes: 0,
  maxFrameBytes: 0,
  maxPendingCalls: 1,
  maxPendingArgsBytes: 0,
  maxValueDepth: 0,
  maxErrorMessageBytes: 8192,
};
let started = false;
let finished = false;
let outputBytes = 0;

/** Call frames made in one turn of the event loop, written together (docs/control-channel.md, "Hot path"). */
let outgoing = '';
let flushScheduled = false;
/** Calls queued in this turn, and in the last batch written: 1 while the program calls one at a time. */
let queuedCalls = 0;
let lastBatchCalls = 0;

function queueFrame(line: string): void {
  outgoing += line + '\n';
  if (!flushScheduled) {
    flushScheduled = true;
    // A tick queued from a microtask runs once the microtask queue is empty: every call the program
    // starts before it next waits on I/O goes out in one write.
    nextTick(flushFrames);
  }
}

function flushFrames(): void {
  flushScheduled = false;
  lastBatchCalls = queuedCalls;
  queuedCalls = 0;
  if (outgoing === '') return;
  const text = outgoing;
  outgoing = '';
  send(text);
}

/** Writes a frame at once, after the queued ones (logs and `done` are never held back). */
function write(line: string): void {
  const text = outgoing + line + '\n';
  outgoing = '';
  send(text);
}

/**
 * Writes `text` with one write(2) when nothing is queued on the socket, else through the stream,
 * which keeps the order. The socket is non-blocking: when the host is behind, what the kernel did not
 * take is queued on the stream, and so is everything after it until the queue is empty.
 */
function send(text: string): void {
  if (channel.writableLength === 0) {
    let written: number;
    try {
      written = writeSync(CHANNEL_FD, text);
    } catch {
      // EAGAIN, or the channel is gone: the stream queues the text or reports the error ('error' below).
      channel.write(text);
      return;
    }
    if (written < byteLength(text, 'utf8')) channel.write(Buffer.from(text, 'utf8').subarray(written));
    return;
  }
  channel.write(text);
}

// The host ending the channel means it is gone or done with us.
channel.on('end', () => exitProcess(0));
channel.on('error', () => exitProcess(0));

/** Bytes of an unfinished line, copied out of the read buffer (which the next read reuses). */
let incoming: Buffer[] = [];

/** Parses every complete line of one read; the bytes after the last LF wait for the next read. */
function onChannelRead(bytes: number, buffer: Buffer): void {
  const last = buffer.lastIndexOf(LF, bytes - 1);
  if (last === -1) {
    incoming.push(Buffer.from(buffer.subarray(0, bytes)));
    return;
  }
  // Decoded up to an LF only, so a UTF-8 character split across reads is never cut.
  let text: string;
  if (incoming.length === 0) text = buffer.toString('utf8', 0, last);
  else {
    incoming.push(buffer.subarray(0, last));
    text = Buffer.concat(incoming).toString('utf8');
    incoming = [];
  }
  if (last + 1 < bytes) incoming.push(Buffer.from(buffer.subarray(last + 1, bytes)));
  let start = 0;
  let newline = text.indexOf('\n');
  while (newline !== -1) {
    onHostFrame(parseJson(text.slice(start, newline)) as HostFrame);
    start = newline + 1;
    newline = text.indexOf('\n', start);
  }
  onHostFrame(parseJson(start === 0 ? text : text.slice(start)) as HostFrame);
}

// A kept process (in-memory mode) runs a later program once the previous one is done.
const keptRuns = createKeptRuns({
  reset(): void {
    finished = false;
    outputBytes = 0;
    pendingArgsBytes = 0;
    pendingCalls.clear();
    waitingCalls.length = 0;
    rawPartial.stdout = '';
    rawPartial.stderr = '';
  },
});

function onHostFrame(frame: HostFrame): void {
  if (frame.type === 'run') {
    if (!started) {
      started = true;
      keptRuns.begin(frame);
      runProgram(frame);
    } else if (finished && keptRuns.next(frame)) {
      runProgram(frame);
    }
  } else if (frame.type === 'result') {
    onResult(frame);
  }
}

// ---- output: console, raw stdout/stderr, the ledger ----

function finishWithError(code: ChildErrorCode, message: string): void {
  if (finished) return;
  finished = true;
  write(`{"type":"done","ok":false,"error":{"code":"${code}","message":${stringify(capMessage(message))}}}`);
}

const LOCATION_SUFFIX = / \(program\.ts:\d+:\d+\)$/;

/**
 * The message within limits.maxErrorMessageBytes: its head, a note with the full size and the
 * trailing program location. Mirrors capErrorMessage in src/error-text.ts (this file imports
 * nothing), so the host's own cap leaves the result as it is.
 */
function capMessage(message: string): string {
  const max = limits.maxErrorMessageBytes;
  if (message.length * 3 <= max) return message;
  const total = byteLength(message, 'utf8');
  if (total <= max) return message;
  const found = regexpExec(LOCATION_SUFFIX, stringSlice(message, -256));
  const location = found === null ? '' : (found[0] as string);
  const note = `… [message truncated: ${total} bytes in all]`;
  const budget = max - byteLength(note + location, 'utf8');
  let head = stringSlice(message, 0, Math.max(0, budget));
  let bytes = byteLength(head, 'utf8');
  while (bytes > budget) {
    head = stringSlice(head, 0, head.length - Math.max(1, Math.floor((bytes - budget) / 3)));
    bytes = byteLength(head, 'utf8');
  }
  // Never end on the first half of a surrogate pair.
  const last = charCodeAt(head, head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = stringSlice(head, 0, -1);
  return `${head}${note}${location}`;
}

function emitLog(stream: 'stdout' | 'stderr', text: string): void {
  // Output before the program starts (Node's own warnings) is not the program's: it is dropped.
  if (!started || finished) return;
  // Each line also costs its newline, so even empty lines are bounded by the ledger.
  const bytes = byteLength(text, 'utf8') + 1;
  if (outputBytes + bytes > limits.maxOutputBytes) {
    finishWithError(
      'OUTPUT_LIMIT',
      `the program's output exceeded ${limits.maxOutputBytes} bytes (logs plus the returned value); ` +
        'log less (counts, the first items, a summary) and return only what is needed',
    );
    return;
  }
  const line = `{"type":"log","stream":"${stream}","text":${stringify(text)}}`;
  if (byteLength(line, 'utf8') > limits.maxFrameBytes) {
    finishWithError('OUTPUT_LIMIT', `one log line is larger than the ${limits.maxFrameBytes}-byte channel limit; log less at once`);
    return;
  }
  outputBytes += bytes;
  write(line);
}

function consoleStream(stream: 'stdout' | 'stderr'): InstanceType<typeof Writable> {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      // Console writes one chunk per call, ending in a newline: one log entry per console call.
      emitLog(stream, text.endsWith('\n') ? text.slice(0, -1) : text);
      callback();
    },
  });
}

const rawPartial = { stdout: '', stderr: '' };

function captureRaw(stream: 'stdout' | 'stderr', target: NodeJS.WriteStream): void {
  const rawWrite = function (chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    let text: string;
    if (typeof chunk === 'string') text = chunk;
    else if (chunk instanceof Uint8Array) text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
    else text = String(chunk);
    const done = typeof encoding === 'function' ? encoding : callback;
    const buffered = rawPartial[stream] + text;
    let start = 0;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      emitLog(stream, buffered.slice(start, newline));
      start = newline + 1;
      newline = buffered.indexOf('\n', start);
    }
    let rest = buffered.slice(start);
    // An endless line without a newline still counts against the ledger once it could not fit.
    if (rest.length > limits.maxOutputBytes) {
      emitLog(stream, rest);
      rest = '';
    }
    rawPartial[stream] = rest;
    if (typeof done === 'function') process.nextTick(done as () => void);
    return true;
  };
  defineProperty(target, 'write', { value: rawWrite, writable: true, configurable: true });
}

function flushRaw(): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    if (rawPartial[stream] !== '') {
      const text = rawPartial[stream];
      rawPartial[stream] = '';
      emitLog(stream, text);
    }
  }
}

// ---- bindings ----

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

function callBinding(member: Member, args: unknown): Promise<JsonValue | undefined> {
  if (finished) return new Promise(() => undefined);
  const site: CallSite = {};
  captureStackTrace(site, member.fn);
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
  return new Promise((resolve, reject) => {
    const call: Call = { member, resolve, reject, site, bytes, args: json };
    if (waitingCalls.length === 0 && hasRoomFor(call)) sendCall(call);
    else waitingCalls.push(call);
  });
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
  // A program calling one at a time (the only call in flight, and so was the last batch) gets its
  // call written now instead of from the tick: nothing would join it, and the tick costs the
  // sequential round trip more than the write (docs/control-channel.md, "Hot path"). A
  // Promise.all's calls still go out together.
  if (pendingCalls.size === 1 && !flushScheduled && lastBatchCalls <= 1) {
    lastBatchCalls = 1;
    send(line + '\n');
    return;
  }
  queuedCalls++;
  queueFrame(line);
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

function onResult(frame: ResultFrame): void {
  const call = pendingCalls.get(frame.id);
  if (call === undefined) return;
  pendingCalls.delete(frame.id);
  pendingArgsBytes -= call.bytes;
  if (frame.ok) call.resolve(frame.value);
  else call.reject(callError(call.member, frame.error.message, call.site, frame.error.code));
  if (waitingCalls.length > 0) sendWaitingCalls();
}

function installBindings(bindings: readonly ChildBinding[]): void {
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
        fn: (args?: unknown) => callBinding(member, args),
      };
      defineProperty(member.fn, 'name', { value: name });
      defineProperty(namespace, name, { value: member.fn, enumerable: true, writable: false, configurable: false });
    }
    Object.freeze(namespace);
    defineProperty(globalThis, binding.global, { value: namespace, writable: true, configurable: true });
  }
}

// ---- the program ----

interface JsonProblem {
  readonly path: string;
  readonly reason: string;
}

/** One container being walked by jsonProblem: an array (keys null) or a plain object. */
interface Walk {
  readonly object: object;
  readonly keys: readonly string[] | null;
  readonly length: number;
  index: number;
  /** The key or index of the child being examined, for the path of a problem. */
  current: string | number;
  readonly depth: number;
  readonly parent: Walk | null;
}

/**
 * Why `value` is not JSON that JSON.stringify turns into text without running program code, or
 * undefined. Iterative (nesting is bounded by limits.maxValueDepth), and it only reads own data
 * properties through the captured primordials: a getter, a toJSON (own or on Object.prototype or
 * Array.prototype), a Proxy or a class instance is a problem, never a call. Once it passes, the captured
 * JSON.stringify reads the same own data properties and nothing else. Mirrors checkJson in
 * src/json.ts (this file imports nothing).
 */
function jsonProblem(value: unknown): JsonProblem | undefined {
  let top: Walk | null = null;
  let hooksChecked = false;
  let current: unknown = value;
  for (;;) {
    if (typeof current === 'object' && current !== null) {
      if (!hooksChecked) {
        const hook = prototypeHook();
        if (hook !== undefined) return { path: '', reason: hook };
        hooksChecked = true;
      }
      const entered = enter(current, top);
      if (typeof entered === 'string') return { path: pathOf(top), reason: entered };
      top = entered;
    } else {
      const reason = scalarProblem(current);
      if (reason !== undefined) return { path: pathOf(top), reason };
    }
    while (top !== null && top.index >= top.length) top = top.parent;
    if (top === null) return undefined;
    const index = top.index++;
    const key: string | number = top.keys === null ? index : (top.keys[index] as string);
    top.current = key;
    const descriptor = getOwnPropertyDescriptor(top.object, key);
    if (descriptor === undefined) current = undefined;
    else if (!hasOwn(descriptor, 'value')) {
      return { path: pathOf(top), reason: 'a getter is not JSON (serialising would run it); copy the value into a plain property' };
    } else current = descriptor.value;
  }
}

function scalarProblem(value: unknown): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return isFiniteNumber(value) ? undefined : `${value} is not a JSON number`;
  if (value === undefined) return 'undefined is not JSON (omit the property or use null)';
  return `a ${typeof value} is not JSON`;
}

/** A toJSON that JSON.stringify would find on every plain object or array, or undefined. */
function prototypeHook(): string | undefined {
  if (getOwnPropertyDescriptor(objectPrototype, 'toJSON') !== undefined) return 'Object.prototype.toJSON is defined, and JSON.stringify would call it';
  if (getOwnPropertyDescriptor(arrayPrototype, 'toJSON') !== undefined) return 'Array.prototype.toJSON is defined, and JSON.stringify would call it';
  if (getPrototypeOf(arrayPrototype) !== objectPrototype) return "Array.prototype's prototype was replaced";
  return undefined;
}

/** The walk of `object` below `parent`, or why it cannot be JSON. */
function enter(object: object, parent: Walk | null): Walk | string {
  if (isProxy(object)) return 'a Proxy is not JSON';
  for (let walk = parent; walk !== null; walk = walk.parent) if (walk.object === object) return 'a cyclic reference is not JSON';
  const depth = parent === null ? 1 : parent.depth + 1;
  if (depth > limits.maxValueDepth) return `the value is nested deeper than ${limits.maxValueDepth} levels`;
  const own = getOwnPropertyDescriptor(object, 'toJSON');
  if (own !== undefined && (!hasOwn(own, 'value') || typeof own.value === 'function')) return 'a toJSON method is not JSON (serialising would call it)';
  const proto: unknown = getPrototypeOf(object);
  if (isArray(object)) {
    if (proto !== arrayPrototype) return `${describePrototype(proto)} is not a plain array`;
    return { object, keys: null, length: (object as unknown[]).length, index: 0, current: 0, depth, parent };
  }
  if (proto !== objectPrototype && proto !== null) return `${describePrototype(proto)} is not a plain object`;
  const keys = objectKeys(object);
  return { object, keys, length: keys.length, index: 0, current: 0, depth, parent };
}

/** "a Date", read from the prototype's own data properties only. */
function describePrototype(proto: unknown): string {
  if (typeof proto !== 'object' || proto === null || isProxy(proto)) return 'an exotic object';
  const ctor = getOwnPropertyDescriptor(proto, 'constructor');
  const fn: unknown = ctor !== undefined && hasOwn(ctor, 'value') ? ctor.value : undefined;
  if (typeof fn !== 'function' || isProxy(fn)) return 'an exotic object';
  const name = getOwnPropertyDescriptor(fn, 'name');
  const text: unknown = name !== undefined && hasOwn(name, 'value') ? name.value : undefined;
  return typeof text === 'string' && text !== '' ? `a ${text}` : 'an exotic object';
}

/** The JSON Pointer of the child being examined under `top`. */
function pathOf(top: Walk | null): string {
  let path = '';
  for (let walk = top; walk !== null; walk = walk.parent) {
    const key = walk.current;
    path = `/${typeof key === 'number' ? `${key}` : stringReplaceAll(stringReplaceAll(key, '~', '~0'), '/', '~1')}${path}`;
  }
  return path;
}

/** The value's JSON text, or why it is not JSON; no program code runs either way. */
function toJsonText(value: unknown): string | JsonProblem {
  try {
    return jsonProblem(value) ?? (stringify(value) as string);
  } catch (error) {
    return { path: '', reason: `inspecting it threw: ${describeThrown(error)}` };
  }
}

function onProgramValue(value: unknown): void {
  if (finished) return;
  flushRaw();
  if (finished) return;
  if (value === undefined) {
    finished = true;
    write('{"type":"done","ok":true}');
    return;
  }
  const json = toJsonText(value);
  if (typeof json !== 'string') {
    const problem = json;
    finishWithError(
      'INVALID_OUTPUT',
      `the returned value is not JSON: ${problem.path === '' ? 'the value itself' : `at ${problem.path}`}: ${problem.reason}. ` +
        'Return plain objects, arrays, strings, numbers, booleans or null (convert Dates, Maps and class instances first).',
    );
    return;
  }
  const bytes = byteLength(json, 'utf8');
  const line = `{"type":"done","ok":true,"value":${json}}`;
  if (outputBytes + bytes > limits.maxOutputBytes || byteLength(line, 'utf8') > limits.maxFrameBytes) {
    finishWithError(
      'OUTPUT_LIMIT',
      `the returned value is ${bytes} bytes and the logs ${outputBytes} bytes: more than the output limit of ` +
        `${limits.maxOutputBytes} bytes; return less (a summary, a count, the first items)`,
    );
    return;
  }
  finished = true;
  write(line);
}

function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) {
      const name = typeof error.name === 'string' && error.name !== '' ? error.name : 'Error';
      return `${name}: ${String(error.message)}`;
    }
    return `a non-Error value was thrown: ${inspect(error, { depth: 2, breakLength: Infinity })}`;
  } catch {
    return 'an unprintable value was thrown';
  }
}

function thrownLocation(error: unknown): string | undefined {
  try {
    if (!(error instanceof Error) || typeof error.stack !== 'string') return undefined;
    const match = /program\.ts:(\d+):(\d+)/.exec(error.stack);
    return match === null ? undefined : `${PROGRAM_FILENAME}:${match[1]}:${match[2]}`;
  } catch {
    return undefined;
  }
}

function onProgramError(error: unknown): void {
  // Before the program arrives a throw is the bootstrap's own failure: exit so the host sees it.
  if (!started) exitProcess(70);
  if (finished) return;
  flushRaw();
  if (finished) return;
  const location = thrownLocation(error);
  finishWithError('EXCEPTION', `${describeThrown(error)}${location === undefined ? '' : ` (${location})`}`);
}

/**
 * Everything that does not depend on the run frame happens before `ready`, off the hot path: the
 * program's console, raw output capture, `require`, the error handlers, and one pass through the
 * compile-and-call path so its code is warm when the program arrives.
 */
function prepare(): void {
  const programConsole = new Console({ stdout: consoleStream('stdout'), stderr: consoleStream('stderr'), colorMode: false });
  defineProperty(globalThis, 'console', { value: programConsole, writable: true, configurable: true });
  captureRaw('stdout', process.stdout);
  captureRaw('stderr', process.stderr);
  // Built-ins and the workspace's own packages, as a CommonJS module in the workspace would see them.
  defineProperty(globalThis, 'require', {
    value: createRequire(join(process.cwd(), PROGRAM_FILENAME)),
    writable: true,
    configurable: true,
  });
  process.on('uncaughtException', onProgramError);
  process.on('unhandledRejection', onProgramError);
  const warm = compile('(async function () {\nreturn { warm: [1, "x", null] };\n})');
  void (warm as () => Promise<unknown>)().then((value) => toJsonText(value));
}

function compile(code: string): unknown {
  const script = new vm.Script(code, {
    filename: PROGRAM_FILENAME,
    lineOffset: PROGRAM_LINE_OFFSET,
    ...(dynamicImport === undefined ? {} : { importModuleDynamically: dynamicImport }),
  });
  return script.runInThisContext();
}

function runProgram(frame: RunFrame): void {
  limits = frame.limits;
  installBindings(frame.bindings);
  let body: unknown;
  try {
    body = compile(frame.code);
  } catch (error) {
    onProgramError(error);
    return;
  }
  if (typeof body !== 'function') {
    finishWithError('EXCEPTION', 'the program closed its own function body early (unbalanced braces)');
    return;
  }
  let completion: unknown;
  try {
    completion = (body as () => unknown)();
  } catch (error) {
    onProgramError(error);
    return;
  }
  Promise.resolve(completion).then(onProgramValue, onProgramError);
}

prepare();
write('{"type":"ready"}');
