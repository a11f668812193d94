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
import type { AnyToolDefinition, DeferredContext, ToolCallResult, ToolExecContext } from './types.js';

/** Runs one call of `name` in `ctx`'s container through the whole pipeline; emits `tools/result`. */
export async function executeCall(ctx: Context, store: ToolStore, name: string, args: unknown, options: ExecuteOptions): Promise<ToolCallResult> {
  const scope = options.scope ?? ctx;
  const id = options.id ?? store.newCallId();
  const snapshot = snapshotArgs(args);
  const call: ToolCall = Object.freeze({
    id,
    name,
    args: snapshot.ok ? snapshot.value : null,
    ...(options.parent ? { parent: Object.freeze({ ...options.parent }) } : {}),
    scope,
    ...(options.signal ? { signal: options.signal } : {}),
  });

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
  const frozen = deepFreeze({ ...result });
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

  const decision = await hook('tools/pre-execute', () => ctx.serial('tools/pre-execute', call));
  if (!decision.ok) return decision.result;
  if (decision.value) return failure('PERMISSION_DENIED', `The call to "${call.name}" was blocked: ${decision.value.block}`);

  for (const guard of scopedFor(store.guards, call.scope)) {
    const verdict = await hook('guard', () => guard(call));
    if (!verdict.ok) return verdict.result;
    if (verdict.value !== undefined) return failure('PERMISSION_DENIED', `The call to "${call.name}" was denied: ${verdict.value}`);
  }

  if (signal?.aborted) return failure('ABORTED', `The call to "${call.name}" was aborted before it started.`);
  let result = await runBody(ctx, call, args, def, entry, signal, spill);

  const post = await hook('tools/post-execute', () => ctx.serial('tools/post-execute', call, result));
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
  const deferred: DeferredContext[] = [];
  const exec: ToolExecContext = {
    signal: signal ?? new AbortController().signal,
    callId: call.id,
    scope: call.scope,
    ...(call.parent ? { parent: call.parent } : {}),
    ...(spill ? { spill } : {}),
    deferContext: (entry) => void deferred.push(Object.freeze({ ...entry })),
  };
  const body = async (): Promise<JsonValue | undefined> =>
    (await (def.execute as (args: unknown, exec: ToolExecContext) => unknown)(args, exec)) as JsonValue | undefined;
  const chain = ctx.listeners('tools/execute').reduceRight<() => Promise<JsonValue | undefined>>(
    (next, middleware) => () => middleware(call, next),
    body,
  );
  const withContexts = (r: ToolCallResult): ToolCallResult =>
    deferred.length > 0 ? { ...r, deferredContexts: [...deferred] } : r;

  let value: JsonValue | undefined;
  try {
    value = await chain();
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
  return withContexts({ ...(value !== undefined ? { value } : {}), content, isError: false });
}

/** Runs one hook step; a throwing hook fails the call closed instead of escaping the pipeline. */
async function hook<T>(
  what: string,
  step: () => T | Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; result: ToolCallResult }> {
  try {
    return { ok: true, value: await step() };
  } catch (error) {
    return { ok: false, result: failure('TOOL_FAILED', `A ${what} hook failed: ${messageOf(error)}`) };
  }
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

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
