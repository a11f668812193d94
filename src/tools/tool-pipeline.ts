// The ONE execution pipeline every tool call traverses, direct or from inside a program
// (docs/ptc-mode.md): resolve -> validate (ajv, then the tool's parsing schema) -> tools/pre-execute
// -> guards -> tools/execute around the body -> output checks -> tools/post-execute ->
// finalizeContent -> tools/result. A failure is a result with `isError` and a stable code, never a
// throw; a throwing hook fails its call closed.

import type { Context } from '../context/context.js';
import { HarnessError, type ErrorCode, type ErrorInfo } from '../errors.js';
import { checkJson, renderJson, type JsonValue } from '../json.js';
import { parseWith } from './parsing-schema.js';
import type { SpillStore } from './spill.js';
import type { ExecuteOptions, ToolCall } from './tool-calls.js';
import { collapsedMessage, executionTarget, unknownToolMessage, type ExecutionTarget } from './tool-presentation.js';
import { scopedFor, type Entry, type ToolStore } from './tool-store.js';
import type { AnyToolDefinition, DeferredContext, ToolCallRef, ToolCallResult, ToolExecContext } from './types.js';

/** Runs one call of `name` in `ctx`'s container through the whole pipeline; emits `tools/result`. */
export async function executeCall(ctx: Context, store: ToolStore, name: string, args: unknown, options: ExecuteOptions): Promise<ToolCallResult> {
  const scope = options.scope ?? ctx;
  const id = options.id ?? store.newCallId();
  const snapshot = snapshotArgs(args);
  // One literal per shape, in the order observers see: no throwaway objects per call (docs/control-channel.md, "Hot path").
  const callArgs = snapshot.ok ? snapshot.value : null;
  const fields: { -readonly [K in keyof ToolCall]: ToolCall[K] } = options.parent
    ? { id, name, args: callArgs, parent: frozenRef(options.parent), scope }
    : { id, name, args: callArgs, scope };
  if (options.signal) fields.signal = options.signal;
  const call: ToolCall = Object.freeze(fields);

  const target = executionTarget(store, name, scope, call.parent !== undefined);
  const def = target.def;
  let result = await runChecked(ctx, store, call, target, snapshot, options.signal, options.spill);
  if (def?.finalizeContent) {
    try {
      result = { ...result, content: def.finalizeContent(result) };
    } catch (error) {
      result = failure('TOOL_FAILED', `finalizeContent of tool "${name}" failed: ${messageOf(error)}`);
    }
  }
  const frozen = deepFreeze(copyResult(result));
  ctx.emit('tools/result', Object.freeze({ call, result: frozen }));
  return frozen;
}

async function runChecked(
  ctx: Context,
  store: ToolStore,
  call: ToolCall,
  target: ExecutionTarget,
  snapshot: Snapshot,
  signal: AbortSignal | undefined,
  spill: SpillStore | undefined,
): Promise<ToolCallResult> {
  if (signal?.aborted) return failure('ABORTED', `The call to "${call.name}" was aborted before it started.`);
  const invalidJson = () =>
    failure('INVALID_ARGS', `Invalid arguments for tool "${call.name}": ${snapshot.ok ? '' : snapshot.reason}. Pass plain JSON values and call again.`);
  if (!target.def) {
    if (target.collapsed && !snapshot.ok) return invalidJson();
    return failure('UNKNOWN_TOOL', target.collapsed ? collapsedMessage(call.name) : unknownToolMessage(store, call.name, call.scope));
  }
  const def = target.def;
  if (!snapshot.ok) return invalidJson();
  const entry = target.entry!;
  const invalidArgs = (problems: readonly string[]) =>
    failure(
      'INVALID_ARGS',
      `Invalid arguments for tool "${call.name}":\n${problems.map((p) => `  ${p}`).join('\n')}\n` +
        `Fix these arguments to match the tool's input schema and call it again.`,
    );
  const problems = entry.validateArgs(call.args);
  if (problems.length > 0) return invalidArgs(problems);
  // A parsing schema (zod) runs after ajv: it applies defaults and checks what JSON Schema cannot say.
  let args: unknown = call.args;
  if (def.input) {
    let parsed;
    try {
      parsed = await parseWith(def.input, call.args);
    } catch (error) {
      return failure('TOOL_FAILED', `Parsing the arguments of tool "${call.name}" failed: ${messageOf(error)}`);
    }
    if (!parsed.ok) return invalidArgs(parsed.problems);
    args = parsed.value;
  }

  const pending = hook('tools/pre-execute', () => (heard(ctx, 'tools/pre-execute') ? ctx.serial('tools/pre-execute', call) : undefined));
  const decision = pending instanceof Promise ? await pending : pending;
  if (!decision.ok) return decision.result;
  if (decision.value) return failure('PERMISSION_DENIED', `The call to "${call.name}" was blocked: ${decision.value.block}`);

  for (const guard of scopedFor(store.guards, call.scope)) {
    const pendingVerdict = hook('guard', () => guard(call));
    const verdict = pendingVerdict instanceof Promise ? await pendingVerdict : pendingVerdict;
    if (!verdict.ok) return verdict.result;
    if (verdict.value !== undefined) return failure('PERMISSION_DENIED', `The call to "${call.name}" was denied: ${verdict.value}`);
  }

  if (signal?.aborted) return failure('ABORTED', `The call to "${call.name}" was aborted before it started.`);
  let result = await runBody(ctx, call, args, def, entry, signal, spill);

  const pendingPost = hook('tools/post-execute', () => (heard(ctx, 'tools/post-execute') ? ctx.serial('tools/post-execute', call, result) : undefined));
  const post = pendingPost instanceof Promise ? await pendingPost : pendingPost;
  if (!post.ok) return post.result;
  if (post.value && 'block' in post.value) {
    return failure('PERMISSION_DENIED', `The result of "${call.name}" was blocked: ${post.value.block}`);
  }
  if (post.value && 'content' in post.value) result = { ...result, content: post.value.content };
  return result;
}

async function runBody(
  ctx: Context,
  call: ToolCall,
  args: unknown,
  def: AnyToolDefinition,
  entry: Entry,
  signal: AbortSignal | undefined,
  spill: SpillStore | undefined,
): Promise<ToolCallResult> {
  // Fields added in the order tools have always seen them, without a throwaway object per field.
  let deferred: DeferredContext[] | undefined;
  const exec: { -readonly [K in keyof ToolExecContext]: ToolExecContext[K] } = {
    signal: signal ?? new AbortController().signal,
    callId: call.id,
    scope: call.scope,
  } as ToolExecContext;
  if (call.parent) exec.parent = call.parent;
  if (spill) exec.spill = spill;
  exec.deferContext = (entry) => void (deferred ??= []).push(Object.freeze({ ...entry }));
  const execute = def.execute as (args: unknown, exec: ToolExecContext) => unknown;
  const middleware = ctx.listeners('tools/execute');
  const withContexts = (r: ToolCallResult): ToolCallResult =>
    deferred !== undefined && deferred.length > 0 ? { ...r, deferredContexts: [...deferred] } : r;

  let value: JsonValue | undefined;
  try {
    if (middleware.length === 0) {
      value = (await execute(args, exec)) as JsonValue | undefined;
    } else {
      const body = async (): Promise<JsonValue | undefined> => (await execute(args, exec)) as JsonValue | undefined;
      const chain = middleware.reduceRight<() => Promise<JsonValue | undefined>>((next, step) => () => step(call, next), body);
      value = await chain();
    }
  } catch (error) {
    if (signal?.aborted) return withContexts(failure('ABORTED', `The call to "${call.name}" was aborted.`));
    const info = error instanceof HarnessError ? error.toInfo() : { code: 'TOOL_FAILED' as const, message: messageOf(error) };
    return withContexts(failure(info.code, info.message));
  }
  if (value !== undefined && def.output) {
    let parsed;
    try {
      parsed = await parseWith(def.output, value);
    } catch (error) {
      return withContexts(failure('TOOL_FAILED', `Parsing the value of tool "${call.name}" failed: ${messageOf(error)}`));
    }
    if (!parsed.ok) {
      return withContexts(
        failure('TOOL_FAILED', `Tool "${call.name}" returned a value that breaks its output schema:\n${parsed.problems.map((p) => `  ${p}`).join('\n')}`),
      );
    }
    value = parsed.value as JsonValue | undefined;
  }
  if (value !== undefined) {
    const json = checkJson(value);
    if (!json.ok) {
      return withContexts(
        failure('TOOL_FAILED', `Tool "${call.name}" returned a value that is not JSON (${json.path || '(root)'}: ${json.reason}).`),
      );
    }
    // The result is frozen for observers; a copy keeps the tool's own objects mutable.
    value = copyJson(value, false);
    const problems = entry.validateOutput?.(value) ?? [];
    if (problems.length > 0) {
      return withContexts(
        failure('TOOL_FAILED', `Tool "${call.name}" returned a value that breaks its output schema:\n${problems.map((p) => `  ${p}`).join('\n')}`),
      );
    }
  }
  let content: string;
  try {
    content = value !== undefined && def.renderContent
      ? (def.renderContent as (v: JsonValue) => string)(value)
      : renderJson(value);
  } catch (error) {
    return withContexts(failure('TOOL_FAILED', `Rendering the result of "${call.name}" failed: ${messageOf(error)}`));
  }
  return withContexts(value !== undefined ? { value, content, isError: false } : { content, isError: false });
}

/** A hook step's outcome: at once when the step returned a value, else once its promise settles. */
type HookOutcome<T> = { ok: true; value: T } | { ok: false; result: ToolCallResult };

/**
 * Runs one hook step; a throwing hook fails the call closed instead of escaping the pipeline. A step
 * that returns a plain value (an event nobody listens to) gives its outcome without a promise, so
 * the call takes no microtask hop for it (docs/control-channel.md, "Hot path").
 */
function hook<T>(what: string, step: () => T | Promise<T>): HookOutcome<T> | Promise<HookOutcome<T>> {
  try {
    const out = step();
    // A thenable of any kind is awaited, as `await` would; only a plain value settles at once.
    if (!isThenable(out)) return { ok: true, value: out };
    return Promise.resolve(out).then(
      (value): HookOutcome<T> => ({ ok: true, value }),
      (error: unknown) => hookFailed(what, error),
    );
  } catch (error) {
    return hookFailed(what, error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function hookFailed(what: string, error: unknown): { ok: false; result: ToolCallResult } {
  return { ok: false, result: failure('TOOL_FAILED', `A ${what} hook failed: ${messageOf(error)}`) };
}

/** Whether `name` has a listener: with none, `ctx.serial(name, ...)` resolves to undefined, given here at once. */
function heard(ctx: Context, name: 'tools/pre-execute' | 'tools/post-execute'): boolean {
  return ctx.listeners(name).length > 0;
}

type Snapshot = { ok: true; value: JsonValue } | { ok: false; reason: string };

function snapshotArgs(args: unknown): Snapshot {
  if (args === undefined) return { ok: true, value: {} };
  const check = checkJson(args);
  if (!check.ok) return { ok: false, reason: `${check.path || '(root)'} holds a ${check.reason}` };
  return { ok: true, value: copyJson(args as JsonValue, true) };
}

function failure(code: ErrorCode, message: string): ToolCallResult {
  const error: ErrorInfo = { code, message };
  return { content: `Error [${code}]: ${message}`, isError: true, error };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

/**
 * A deep copy of a value checkJson accepted (plain, acyclic, bounded depth), frozen throughout when
 * `freeze` is set. For such values it equals structuredClone's copy (an own "__proto__" key stays an
 * own data property, -0 stays -0) at a fraction of the cost on every call (docs/control-channel.md,
 * "Hot path").
 */
function copyJson(value: JsonValue, freeze: boolean): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: JsonValue[] = new Array<JsonValue>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i] as JsonValue, freeze);
    return freeze ? (Object.freeze(out) as JsonValue[]) : out;
  }
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(value)) {
    const item = copyJson(value[key] as JsonValue, freeze);
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return freeze ? Object.freeze(out) : out;
}

/** The caller's parent reference, copied and frozen; one that is frozen already is shared as it is. */
function frozenRef(parent: ToolCallRef): ToolCallRef {
  return Object.isFrozen(parent) ? parent : Object.freeze({ ...parent });
}

/**
 * A shallow copy of a result, its fields in their order, built as a literal: V8 freezes a literal's
 * copy several times faster than a spread's (docs/control-channel.md, "Hot path").
 */
function copyResult(result: ToolCallResult): ToolCallResult {
  const out: { -readonly [K in keyof ToolCallResult]: ToolCallResult[K] } =
    'value' in result ? { value: result.value, content: result.content, isError: result.isError } : { content: result.content, isError: result.isError };
  if ('error' in result) out.error = result.error;
  if ('deferredContexts' in result) out.deferredContexts = result.deferredContexts;
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
