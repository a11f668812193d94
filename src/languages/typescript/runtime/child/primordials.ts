// The built-ins the child bootstrap captures before any program runs (docs/control-channel.md, "The
// child's side"). This file comes first in the child's script, so they are taken before any other
// child code runs; every other child file reads them instead of the live globals.

const { types } = require('node:util') as typeof import('node:util');

// Taken before the program runs, so a program replacing these cannot reroute the bootstrap's own work.
// The frames are built from these alone: no program-controlled toJSON, getter, Proxy trap or prototype
// method ever runs while the bootstrap serialises (docs/control-channel.md, "The child's side").
export const stringify = JSON.stringify;
export const parseJson = JSON.parse;
export const byteLength = Buffer.byteLength;
export const exitProcess = process.exit.bind(process);
export const nextTick = process.nextTick;
export const setImmediateNow = setImmediate;
export const hrtimeBigint = process.hrtime.bigint;
export const captureStackTrace = Error.captureStackTrace;
/** The Error whose stackTraceLimit V8 reads when it captures a stack, even if the program replaces the global. */
export const errorConstructor = Error;
/** The prototype of every error Node makes, whose properties a program can define setters for. */
export const errorPrototype = Error.prototype;
/** Runs its executor at once, which the calls' shared executor relies on (bindings.ts). */
export const promiseConstructor = Promise;
export const promiseResolve = Promise.resolve.bind(Promise) as <T>(value: T) => Promise<Awaited<T>>;
export const getPrototypeOf = Object.getPrototypeOf;
export const objectPrototype = Object.prototype;
export const arrayPrototype = Array.prototype;
export const defineProperty = Object.defineProperty;
export const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const objectKeys = Object.keys;
export const hasOwn = Object.hasOwn;
export const isArray = Array.isArray;
export const isFiniteNumber = Number.isFinite;
export const isProxy = types.isProxy;
const uncurry = <A extends unknown[], R>(method: (...args: A) => R): ((self: unknown, ...args: A) => R) =>
  Function.prototype.call.bind(method) as (self: unknown, ...args: A) => R;
export const stringSlice = uncurry(String.prototype.slice);
export const stringReplaceAll = uncurry(String.prototype.replaceAll as (search: string, replacement: string) => string);
export const charCodeAt = uncurry(String.prototype.charCodeAt);
export const regexpExec = uncurry(RegExp.prototype.exec);
export const promiseThen = uncurry(Promise.prototype.then as (onFulfilled: (value: unknown) => void, onRejected: (reason: unknown) => void) => Promise<void>);
export const stringIndexOf = uncurry(String.prototype.indexOf as (search: string, position?: number) => number);
export const stringIncludes = uncurry(String.prototype.includes as (search: string) => boolean);
export const stringSplit = uncurry(String.prototype.split as (separator: string) => string[]);
export const arrayPush = uncurry(Array.prototype.push as (...items: unknown[]) => number);
export const arrayShift = uncurry(Array.prototype.shift as () => unknown);
export const arrayFilter = uncurry(Array.prototype.filter as (predicate: (value: string) => boolean) => string[]);
export const arrayJoin = uncurry(Array.prototype.join as (separator: string) => string);
export const arrayIncludes = uncurry(Array.prototype.includes as (value: unknown) => boolean);
export const ownKeys = Reflect.ownKeys;
export const objectCreate = Object.create;
export const objectFreeze = Object.freeze;
export const promiseReject = Promise.reject.bind(Promise) as (reason: unknown) => Promise<never>;
// The calls' bookkeeping (bindings.ts) lives in Maps: a kept program that replaced Map.prototype.set
// would otherwise be handed every later call, its settle functions included (docs/in-memory-mode.md).
const mapProto = Map.prototype as Map<unknown, unknown>;
export const mapGet = uncurry(mapProto.get) as <K, V>(map: Map<K, V>, key: K) => V | undefined;
export const mapSet = uncurry(mapProto.set) as <K, V>(map: Map<K, V>, key: K, value: V) => Map<K, V>;
export const mapDelete = uncurry(mapProto.delete) as <K, V>(map: Map<K, V>, key: K) => boolean;
export const mapClear = uncurry(mapProto.clear) as <K, V>(map: Map<K, V>) => void;
/** Iterates without the iterator protocol, whose `next` a program can replace. */
export const mapForEach = uncurry(mapProto.forEach) as <K, V>(map: Map<K, V>, callback: (value: V, key: K) => void) => void;
export const mapSize = uncurry((getOwnPropertyDescriptor(Map.prototype, 'size') as PropertyDescriptor).get as () => number) as (map: Map<unknown, unknown>) => number;
// The channel's reads (channel.ts) go through Buffer methods a kept program could replace to rewrite
// the host's replies before the bootstrap parses them.
export const bufferToString = uncurry(Buffer.prototype.toString as (encoding: BufferEncoding, start?: number, end?: number) => string);
export const bufferLastIndexOf = uncurry(Buffer.prototype.lastIndexOf as (value: number, byteOffset?: number) => number);
export const bufferSubarray = uncurry(Buffer.prototype.subarray as (start?: number, end?: number) => Buffer);
export const bufferFrom = Buffer.from.bind(Buffer) as (value: Buffer | string, encoding?: BufferEncoding) => Buffer;
export const bufferConcat = Buffer.concat.bind(Buffer) as (list: readonly Uint8Array[]) => Buffer;
export const bufferFill = uncurry(Buffer.prototype.fill as (value: number) => Buffer);
/**
 * In-memory mode (docs/in-memory-mode.md, "What a later run can trust"): every run of a kept process
 * runs inside this store, whose value is that run's token; a binding call whose async context carries
 * another token comes from code an earlier program left behind. Its methods are own properties taken
 * here, so a program replacing AsyncLocalStorage.prototype's cannot change what the bootstrap reads.
 * Created now, enabled (which costs every promise a hook) only by the first kept run.
 */
export const runStorage = (() => {
  const { AsyncLocalStorage } = require('node:async_hooks') as typeof import('node:async_hooks');
  const storage = new AsyncLocalStorage<object>();
  const proto = AsyncLocalStorage.prototype as unknown as Record<string, unknown>;
  // `_propagate` too: the promise hook calls it on every store, with the store as `this`.
  for (const name of ['run', 'getStore', '_enable', '_propagate', 'enterWith', 'exit', 'disable']) {
    if (typeof proto[name] === 'function') defineProperty(storage, name, { value: proto[name], writable: false, configurable: false });
  }
  return storage;
})();
