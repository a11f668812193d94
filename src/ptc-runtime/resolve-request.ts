// The runtime-independent half of resolve(): validates a RunRequest as caller input and fills the
// defaults. Every failure is caller misuse, a ConfigError naming the field. A provider adds its own
// checks (program size, names it reserves) through the options.

import { statSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { ConfigError } from '../errors.js';
import { globalNameProblem } from './identifiers.js';
import { resolveTimeoutMs } from './timeout.js';
import type {
  BindingErrorClass,
  BindingFunction,
  BindingNamespace,
  ResolvedRunSpec,
  RunRequest,
  TimeoutDescriptor,
} from './types.js';

export interface ResolveRequestOptions {
  readonly timeout: TimeoutDescriptor;
  /** Globals the provider defines itself (e.g. `console`), which a binding may not take. */
  readonly reservedGlobals?: readonly string[];
  /** Largest program text in UTF-8 bytes. */
  readonly maxProgramBytes?: number;
}

/** Properties of an error instance a member name may not be stored under. */
const RESERVED_ERROR_PROPERTIES = new Set(['name', 'message', 'stack', 'cause']);

const REQUEST_KEYS = new Set(['program', 'bindings', 'cwd', 'timeoutMs', 'signal', 'policy', 'onLog']);
const POLICY_KEYS = new Set(['allowRead', 'allowWrite', 'network', 'protect', 'readOnlyWorkspace']);
const NAMESPACE_KEYS = new Set(['global', 'functions', 'errorClass', 'argumentList']);
const ERROR_CLASS_KEYS = new Set(['name', 'memberNameProperty']);

/** Validates `request` and returns a frozen spec whose binding tables are null-prototype copies. */
export async function resolveRunRequest(request: RunRequest, options: ResolveRequestOptions): Promise<ResolvedRunSpec> {
  if (!isRecord(request)) throw new ConfigError('request must be an object.');
  rejectUnknownKeys(request, REQUEST_KEYS, 'request');

  const program: unknown = request.program;
  if (typeof program !== 'string') throw new ConfigError(`program must be a string, got ${typeName(program)}.`);
  if (options.maxProgramBytes !== undefined) {
    const bytes = Buffer.byteLength(program, 'utf8');
    if (bytes > options.maxProgramBytes) {
      throw new ConfigError(`program is ${bytes} bytes; the limit is ${options.maxProgramBytes} bytes.`);
    }
  }

  const cwd = resolveCwd(request.cwd);
  const timeoutMs = resolveTimeoutMs(options.timeout, request.timeoutMs, 'timeoutMs');
  const signal = resolveSignal(request.signal);
  const onLog: unknown = request.onLog;
  if (onLog !== undefined && typeof onLog !== 'function') throw new ConfigError(`onLog must be a function, got ${typeName(onLog)}.`);
  const policy = resolvePolicy(request.policy, cwd);
  const bindings = resolveBindings(request.bindings, new Set(options.reservedGlobals ?? []));

  const spec: ResolvedRunSpec = {
    program,
    bindings,
    cwd,
    timeoutMs,
    ...(signal === undefined ? {} : { signal }),
    ...(onLog === undefined ? {} : { onLog: onLog as (line: string) => void }),
    policy,
  };
  return Object.freeze(spec);
}

function resolveCwd(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new ConfigError('cwd is required: an absolute path of an existing directory.');
  if (!isAbsolute(value)) throw new ConfigError(`cwd must be an absolute path, got "${value}".`);
  if (value.includes('\0')) throw new ConfigError('cwd must not contain NUL characters.');
  const cwd = resolvePath(value);
  let isDirectory: boolean;
  try {
    // One stat(2) on the host's thread: through the thread pool it costs two thread wake-ups, about a
    // millisecond on a warm run's path (docs/runtime-lifecycle.md, "Measured").
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    throw new ConfigError(`cwd "${cwd}" does not exist.`);
  }
  if (!isDirectory) throw new ConfigError(`cwd "${cwd}" is not a directory.`);
  return cwd;
}

function resolveSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) throw new ConfigError('signal must be an AbortSignal.');
  return value;
}

function resolvePolicy(value: unknown, cwd: string): ResolvedRunSpec['policy'] {
  if (value === undefined) {
    return Object.freeze({ read: Object.freeze([]), write: Object.freeze([]), network: false, protect: Object.freeze([]), readOnlyWorkspace: false });
  }
  if (!isRecord(value)) throw new ConfigError(`policy must be an object, got ${typeName(value)}.`);
  rejectUnknownKeys(value, POLICY_KEYS, 'policy');
  const paths = (field: 'allowRead' | 'allowWrite' | 'protect'): readonly string[] => {
    const list = value[field];
    if (list === undefined) return Object.freeze([]);
    if (!Array.isArray(list)) throw new ConfigError(`policy.${field} must be an array of paths.`);
    const out: string[] = [];
    list.forEach((entry: unknown, index) => {
      if (typeof entry !== 'string' || entry === '' || entry.includes('\0')) {
        throw new ConfigError(`policy.${field}[${index}] must be a non-empty path string.`);
      }
      // Relative paths are taken relative to the workspace, as a user typing --allow-read would mean.
      const path = resolvePath(cwd, entry);
      if (!out.includes(path)) out.push(path);
    });
    return Object.freeze(out);
  };
  const network = value['network'];
  if (network !== undefined && typeof network !== 'boolean') {
    throw new ConfigError(`policy.network must be a boolean, got ${typeName(network)}.`);
  }
  const readOnlyWorkspace = value['readOnlyWorkspace'];
  if (readOnlyWorkspace !== undefined && typeof readOnlyWorkspace !== 'boolean') {
    throw new ConfigError(`policy.readOnlyWorkspace must be a boolean, got ${typeName(readOnlyWorkspace)}.`);
  }
  return Object.freeze({
    read: paths('allowRead'),
    write: paths('allowWrite'),
    network: network === true,
    protect: paths('protect'),
    readOnlyWorkspace: readOnlyWorkspace === true,
  });
}

function resolveBindings(value: unknown, reserved: ReadonlySet<string>): readonly BindingNamespace[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) throw new ConfigError('bindings must be an array of binding namespaces.');
  // Global name -> what took it; an error class may be shared by namespaces when it is the same class.
  const taken = new Map<string, { kind: 'global' } | { kind: 'errorClass'; memberNameProperty: string }>();
  const out: BindingNamespace[] = [];
  value.forEach((entry: unknown, index) => {
    const field = `bindings[${index}]`;
    if (!isRecord(entry)) throw new ConfigError(`${field} must be an object { global, functions, errorClass? }.`);
    rejectUnknownKeys(entry, NAMESPACE_KEYS, field);

    const global = checkGlobalName(entry['global'], `${field}.global`, reserved);
    if (taken.has(global)) throw new ConfigError(`${field}.global: "${global}" is already used by another binding.`);
    taken.set(global, { kind: 'global' });

    const functions = copyFunctions(entry['functions'], `${field}.functions`);

    let errorClass: BindingErrorClass | undefined;
    if (entry['errorClass'] !== undefined) {
      errorClass = checkErrorClass(entry['errorClass'], `${field}.errorClass`, reserved);
      const previous = taken.get(errorClass.name);
      if (previous === undefined) {
        taken.set(errorClass.name, { kind: 'errorClass', memberNameProperty: errorClass.memberNameProperty });
      } else if (previous.kind === 'global' || previous.memberNameProperty !== errorClass.memberNameProperty) {
        throw new ConfigError(
          `${field}.errorClass.name: "${errorClass.name}" is already used by another binding` +
            (previous.kind === 'errorClass' ? ' with a different memberNameProperty.' : '.'),
        );
      }
    }
    const argumentList: unknown = entry['argumentList'];
    if (argumentList !== undefined && typeof argumentList !== 'boolean') throw new ConfigError(`${field}.argumentList must be a boolean.`);
    out.push(
      Object.freeze({ global, functions, ...(errorClass === undefined ? {} : { errorClass }), ...(argumentList === true ? { argumentList: true } : {}) }),
    );
  });
  return Object.freeze(out);
}

function checkGlobalName(value: unknown, field: string, reserved: ReadonlySet<string>): string {
  const problem = globalNameProblem(value);
  if (problem !== undefined) throw new ConfigError(`${field} ${problem}.`);
  const name = value as string;
  if (reserved.has(name)) throw new ConfigError(`${field}: "${name}" is a global the runtime defines itself.`);
  return name;
}

function copyFunctions(value: unknown, field: string): Readonly<Record<string, BindingFunction>> {
  if (!isRecord(value)) throw new ConfigError(`${field} must be an object mapping member names to async functions.`);
  // A null-prototype copy: "__proto__", "constructor" or "toString" are ordinary own members.
  const copy = Object.create(null) as Record<string, BindingFunction>;
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') throw new ConfigError(`${field} must not have symbol keys.`);
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !descriptor.enumerable) continue;
    const fn: unknown = descriptor.value;
    if (typeof fn !== 'function') {
      throw new ConfigError(`${field}[${JSON.stringify(key)}] must be a function, got ${typeName(fn)}.`);
    }
    Object.defineProperty(copy, key, { value: fn, enumerable: true, writable: false, configurable: false });
  }
  return Object.freeze(copy);
}

function checkErrorClass(value: unknown, field: string, reserved: ReadonlySet<string>): BindingErrorClass {
  if (!isRecord(value)) throw new ConfigError(`${field} must be an object { name, memberNameProperty }.`);
  rejectUnknownKeys(value, ERROR_CLASS_KEYS, field);
  const name = checkGlobalName(value['name'], `${field}.name`, reserved);
  const property = value['memberNameProperty'];
  if (typeof property !== 'string' || property === '') {
    throw new ConfigError(`${field}.memberNameProperty must be a non-empty string.`);
  }
  if (RESERVED_ERROR_PROPERTIES.has(property)) {
    throw new ConfigError(`${field}.memberNameProperty must not be "${property}", which every error already has.`);
  }
  return Object.freeze({ name, memberNameProperty: property });
}

function rejectUnknownKeys(value: Record<string, unknown>, known: ReadonlySet<string>, field: string): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) throw new ConfigError(`${field} has an unknown field "${key}" (known: ${[...known].join(', ')}).`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
