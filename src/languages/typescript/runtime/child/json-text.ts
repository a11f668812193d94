// Program values and thrown errors as the text the child sends: a value's JSON text, or why it is
// not JSON, found without running program code (docs/control-channel.md, "The child's side"); a
// thrown value's description and program location; an error message within its cap
// (docs/control-channel.md, "Error text"). Everything here reads the captured primordials only.

const { inspect } = require('node:util') as typeof import('node:util');

// Defined by the other child files of the same script (bootstrap-source.ts).
declare const stringify: typeof import('./primordials.js').stringify;
declare const byteLength: typeof import('./primordials.js').byteLength;
declare const getPrototypeOf: typeof import('./primordials.js').getPrototypeOf;
declare const objectPrototype: typeof import('./primordials.js').objectPrototype;
declare const arrayPrototype: typeof import('./primordials.js').arrayPrototype;
declare const getOwnPropertyDescriptor: typeof import('./primordials.js').getOwnPropertyDescriptor;
declare const objectKeys: typeof import('./primordials.js').objectKeys;
declare const hasOwn: typeof import('./primordials.js').hasOwn;
declare const isArray: typeof import('./primordials.js').isArray;
declare const isFiniteNumber: typeof import('./primordials.js').isFiniteNumber;
declare const isProxy: typeof import('./primordials.js').isProxy;
declare const stringSlice: typeof import('./primordials.js').stringSlice;
declare const stringReplaceAll: typeof import('./primordials.js').stringReplaceAll;
declare const charCodeAt: typeof import('./primordials.js').charCodeAt;
declare const regexpExec: typeof import('./primordials.js').regexpExec;
declare const PROGRAM_FILENAME: typeof import('./run-program.js').PROGRAM_FILENAME;
declare let limits: typeof import('./bootstrap.js').limits;

export interface JsonProblem {
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
export function toJsonText(value: unknown): string | JsonProblem {
  try {
    return jsonProblem(value) ?? (stringify(value) as string);
  } catch (error) {
    return { path: '', reason: `inspecting it threw: ${describeThrown(error)}` };
  }
}

export function describeThrown(error: unknown): string {
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

export function thrownLocation(error: unknown): string | undefined {
  try {
    if (!(error instanceof Error) || typeof error.stack !== 'string') return undefined;
    const match = /program\.ts:(\d+):(\d+)/.exec(error.stack);
    return match === null ? undefined : `${PROGRAM_FILENAME}:${match[1]}:${match[2]}`;
  } catch {
    return undefined;
  }
}

const LOCATION_SUFFIX = / \(program\.ts:\d+:\d+\)$/;

/**
 * The message within limits.maxErrorMessageBytes: its head, a note with the full size and the
 * trailing program location. Mirrors capErrorMessage in src/error-text.ts (this file imports
 * nothing), so the host's own cap leaves the result as it is.
 */
export function capMessage(message: string): string {
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
