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
export const captureStackTrace = Error.captureStackTrace;
/** The Error whose stackTraceLimit V8 reads when it captures a stack, even if the program replaces the global. */
export const errorConstructor = Error;
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
