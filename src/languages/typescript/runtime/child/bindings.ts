// The program's binding namespaces in the child (`tools` and the like): one function per member that
// captures the call site, checks and serialises the arguments, and sends a `call` frame within the
// in-flight bounds (docs/control-channel.md, "Hot path"); a `result` frame settles the pending call,
// and a failure becomes an error thrown at the program's own call site. In a kept process a call is
// refused unless its async context is the run in progress (docs/in-memory-mode.md, "What a later run
// can trust"), and everything on the way to the frame is a captured primordial.

import type { JsonValue } from '../../../../json.js';
import type { ChildBinding, ResultFrame } from '../../../../ptc-runtime-process/frames.js';

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const stringify: typeof import('./primordials.js').stringify;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const captureStackTrace: typeof import('./primordials.js').captureStackTrace;
declare const errorConstructor: typeof import('./primordials.js').errorConstructor;
declare const promiseConstructor: typeof import('./primordials.js').promiseConstructor;
declare const getOwnPropertyDescriptor: typeof import('./primordials.js').getOwnPropertyDescriptor;
declare const defineProperty: typeof import('./primordials.js').defineProperty;
declare const hasOwn: typeof import('./primordials.js').hasOwn;
declare const objectCreate: typeof import('./primordials.js').objectCreate;
declare const objectFreeze: typeof import('./primordials.js').objectFreeze;
declare const promiseReject: typeof import('./primordials.js').promiseReject;
declare const regexpExec: typeof import('./primordials.js').regexpExec;
declare const stringSplit: typeof import('./primordials.js').stringSplit;
declare const stringIncludes: typeof import('./primordials.js').stringIncludes;
declare const arrayFilter: typeof import('./primordials.js').arrayFilter;
declare const arrayJoin: typeof import('./primordials.js').arrayJoin;
declare const arrayPush: typeof import('./primordials.js').arrayPush;
declare const arrayShift: typeof import('./primordials.js').arrayShift;
declare const mapGet: typeof import('./primordials.js').mapGet;
declare const mapSet: typeof import('./primordials.js').mapSet;
declare const mapDelete: typeof import('./primordials.js').mapDelete;
declare const mapClear: typeof import('./primordials.js').mapClear;
declare const mapSize: typeof import('./primordials.js').mapSize;
declare const runStorage: typeof import('./primordials.js').runStorage;
declare const writeCall: typeof import('./channel.js').writeCall;
declare const toJsonText: typeof import('./json-text.js').toJsonText;
declare const PROGRAM_FILENAME: typeof import('./run-program.js').PROGRAM_FILENAME;
declare let limits: typeof import('./bootstrap.js').limits;
declare let finished: typeof import('./bootstrap.js').finished;

/** One member of a binding namespace, with the fixed text of its call frames built once. */
interface Member {
  readonly binding: ChildBinding;
  readonly name: string;
  /** `global` NUL `name`: finds the member of the same name in the run in progress. */
  readonly key: string;
  /** The kept run that installed it (undefined in a stateless process). */
  readonly run: object | undefined;
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
/**
 * `"key":"…",` in a kept process (its channel key, from its first run frame), else empty: part of every
 * call frame's fixed text, and of `done` (run-program.ts). The host refuses a call or done frame of a
 * kept process without it (docs/in-memory-mode.md, "What a later run can trust").
 */
export let keyField = '';
/** The kept run in progress: its token is the value of runStorage in its async context. */
let currentRun: object | undefined;
/** The members the run in progress installed, by `key`. */
const currentMembers = new Map<string, Member>();
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `,"id":` + up to 16 digits + `}` + LF. */
const ID_TAIL_BYTES = 24;

function makeErrorClass(name: string, memberNameProperty: string): ErrorConstructorLike {
  const created = class extends errorConstructor {
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
    return arrayJoin(
      arrayFilter(stringSplit(stack, '\n'), (line) => stringIncludes(line, PROGRAM_FILENAME)),
      '\n',
    );
  } catch {
    return '';
  }
}

function callError(member: Member, message: string, site: CallSite, code?: string): Error {
  const errorClass = member.binding.errorClass;
  const ctor = errorClass === null ? undefined : mapGet(errorClasses, errorClass.name);
  const error = ctor === undefined ? new errorConstructor(message) : new ctor(message, member.name);
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

function neverSettles(): void {}

function callBinding(called: Member, args: unknown, site: CallSite): Promise<JsonValue | undefined> {
  if (finished) return new promiseConstructor<JsonValue | undefined>(neverSettles);
  let member = called;
  if (currentRun !== undefined) {
    // A kept process: only code running in the current run's async context may call. A timer, an
    // I/O callback or a listener an earlier program left behind carries that program's token.
    if (runStorage.getStore() !== currentRun) {
      const error = callError(
        member,
        `${member.label} was refused: this call was made by code of an earlier program after it ended ` +
          '(a timer, callback or listener it left running); only the program now running can call tools',
        site,
        'PERMISSION_DENIED',
      );
      return promiseReject(error);
    }
    // An earlier program's namespace called by the running program (a helper it defined): the call is
    // the running program's own, made through the member of the same name it was given.
    if (member.run !== currentRun) {
      const own = mapGet(currentMembers, member.key);
      if (own === undefined) {
        return promiseReject(callError(member, `${member.label} is not available to this program; the SDK lists its bindings`, site, 'UNKNOWN_TOOL'));
      }
      member = own;
    }
  }
  // Arguments cross losslessly or not at all: JSON.stringify would silently drop undefined, turn NaN
  // into null and Dates into strings. An omitted argument is an empty object.
  const json = args === undefined ? '{}' : toJsonText(args);
  if (typeof json !== 'string') {
    const problem = json;
    const at = problem.path === '' ? 'the argument itself' : `at ${problem.path}`;
    const message = `Invalid arguments for ${member.label}: ${at}: ${problem.reason}. Pass plain JSON values.`;
    return promiseReject(callError(member, message, site, 'INVALID_ARGS'));
  }
  // Exact bytes: the host counts the same for its in-flight bound.
  const bytes = member.fixedBytes + byteLength(json, 'utf8');
  if (bytes > limits.maxFrameBytes) {
    return promiseReject(
      callError(member, `the argument of ${member.label} is ${bytes} bytes; the limit is ${limits.maxFrameBytes} bytes`, site),
    );
  }
  const promise = new promiseConstructor<JsonValue | undefined>(takeSettlers);
  const call: Call = { member, resolve: takenResolve, reject: takenReject, site, bytes, args: json };
  try {
    if (waitingCalls.length === 0 && hasRoomFor(call)) sendCall(call);
    else arrayPush(waitingCalls, call);
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
  const pending = mapSize(pendingCalls);
  if (pending >= limits.maxPendingCalls) return false;
  return pending === 0 || pendingArgsBytes + call.bytes <= limits.maxPendingArgsBytes;
}

function sendCall(call: Call): void {
  const id = nextCallId++;
  mapSet(pendingCalls, id, call);
  pendingArgsBytes += call.bytes;
  const line = `${call.member.head}${call.args},"id":${id}}`;
  call.args = '';
  // Written at once when it is the only call in flight, else batched (writeCall, channel.ts).
  writeCall(line, mapSize(pendingCalls) === 1);
}

/** Sends queued calls in order while there is room. */
function sendWaitingCalls(): void {
  while (waitingCalls.length > 0 && !finished) {
    const next = waitingCalls[0] as Call;
    if (!hasRoomFor(next)) return;
    arrayShift(waitingCalls);
    sendCall(next);
  }
}

export function onResult(frame: ResultFrame): void {
  const call = mapGet(pendingCalls, frame.id);
  if (call === undefined) return;
  mapDelete(pendingCalls, frame.id);
  pendingArgsBytes -= call.bytes;
  // Own fields only: a field the frame lacks must not be found on a prototype a program extended.
  if (frame.ok) call.resolve(hasOwn(frame, 'value') ? frame.value : undefined);
  else {
    const error = frame.error;
    call.reject(callError(call.member, error.message, call.site, hasOwn(error, 'code') ? error.code : undefined));
  }
  if (waitingCalls.length > 0) sendWaitingCalls();
}

/**
 * Installs the run's bindings: fresh frozen namespaces, also set as globals for code that looks them
 * up there. Returns them (and the error classes) by name: a kept program receives these as parameters
 * of its wrapper (top-level-names.ts), so a global an earlier program replaced or froze never stands
 * in for them. `run`: the kept run's token, undefined in a stateless process.
 */
export function installBindings(bindings: readonly ChildBinding[], run: object | undefined): Record<string, unknown> {
  currentRun = run;
  mapClear(currentMembers);
  const given = objectCreate(null) as Record<string, unknown>;
  // Index loops: the iterator protocol is a program's to replace (Array.prototype[Symbol.iterator]).
  for (let b = 0; b < bindings.length; b++) {
    const binding = bindings[b] as ChildBinding;
    if (binding.errorClass !== null) {
      let ctor = mapGet(errorClasses, binding.errorClass.name);
      if (ctor === undefined) {
        ctor = makeErrorClass(binding.errorClass.name, binding.errorClass.memberNameProperty);
        mapSet(errorClasses, binding.errorClass.name, ctor);
      }
      given[binding.errorClass.name] = ctor;
      setGlobal(binding.errorClass.name, ctor);
    }
    // A null-prototype object: any member name, "__proto__" and "constructor" included, is an own member.
    const namespace = objectCreate(null) as Record<string, unknown>;
    const globalJson = stringify(binding.global);
    for (let m = 0; m < binding.members.length; m++) {
      const name = binding.members[m] as string;
      const head = `{"type":"call",${keyField}"global":${globalJson},"member":${stringify(name)},"args":`;
      const member: Member = {
        binding,
        name,
        key: `${binding.global}\u0000${name}`,
        run,
        label: regexpExec(IDENTIFIER, name) !== null ? `${binding.global}.${name}` : `${binding.global}[${stringify(name)}]`,
        head,
        fixedBytes: byteLength(head, 'utf8') + ID_TAIL_BYTES,
        // A method: `arguments` is counted, and like an arrow it has no prototype and is no constructor.
        fn(args?: unknown) {
          const given = binding.argumentList === true ? argumentArray(arguments) : args;
          return callBinding(member, given, captureCallSite(member.fn, arguments.length));
        },
      };
      defineProperty(member.fn, 'name', { value: name });
      defineProperty(namespace, name, { value: member.fn, enumerable: true, writable: false, configurable: false });
      mapSet(currentMembers, member.key, member);
    }
    objectFreeze(namespace);
    given[binding.global] = namespace;
    setGlobal(binding.global, namespace);
  }
  return given;
}

/**
 * The arguments of a call as a fresh array, trailing undefineds dropped (BindingNamespace.argumentList).
 * Defined, not assigned, so an index setter a program put on Array.prototype never runs.
 */
function argumentArray(given: IArguments): unknown[] {
  let count = given.length;
  while (count > 0 && given[count - 1] === undefined) count--;
  const list: unknown[] = [];
  for (let i = 0; i < count; i++) defineProperty(list, i, { value: given[i], enumerable: true, writable: true, configurable: true });
  return list;
}

/** A global for code that looks the binding up there; one a kept program made read-only stays its own. */
function setGlobal(name: string, value: unknown): void {
  try {
    defineProperty(globalThis, name, { value, writable: true, configurable: true });
  } catch {
    // The program received the real one as a parameter of its wrapper.
  }
}

/**
 * Whether the code running now was started by an earlier program of a kept process: its async context
 * carries another run's token (in no run's context is the bootstrap's own, or a stateless process).
 */
export function inEarlierRun(): boolean {
  if (currentRun === undefined) return false;
  const store = runStorage.getStore();
  return store !== undefined && store !== currentRun;
}

/** Takes the channel key of a kept process's first run frame (later frames carry none). */
export function takeChannelKey(key: string | undefined): boolean {
  if (key === undefined || keyField !== '') return false;
  keyField = `"key":${stringify(key)},`;
  return true;
}

/** Ids start at 1 again: only after the warm-up, whose call the host never saw (bootstrap.ts). */
export function restartCallIds(): void {
  nextCallId = 1;
}

/** Forgets the pending and waiting calls, for the next program of a kept process (child/in-memory.ts). */
export function resetCalls(): void {
  pendingArgsBytes = 0;
  mapClear(pendingCalls);
  waitingCalls.length = 0;
}
