// The ToolRuntime service (`ctx.tools`): one store of tool definitions, scoped visibility layers and
// guards, and the ONE execution pipeline every call traverses, direct or from inside a program.

import { didYouMean } from '../did-you-mean.js';
import { bindContext, type Context, type ContextBound, type Disposer } from '../context/context.js';
import {
  ConfigError,
  HarnessError,
  RuntimeUnavailableError,
  type ErrorCode,
  type ErrorInfo,
} from '../errors.js';
import { checkJson, renderJson, type JsonValue } from '../json.js';
import { isParsingSchema, parseNow, parseWith } from './parsing-schema.js';
import { compileSchema, deferSchema, type SchemaValidator } from './schema-validator.js';
import type { SpillStore } from './spill.js';
import { schemasVetted } from './vetted-schemas.js';
import type {
  AnyToolDefinition,
  DeferredContext,
  ToolCallRef,
  ToolCallResult,
  ToolExecContext,
  ToolSchema,
} from './types.js';

/** The transport tool of PTC mode; never registrable, whatever the mode (any agent may pick PTC later). */
export const RUN_CODE_TOOL_NAME = 'run_code';
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([RUN_CODE_TOOL_NAME]);

/**
 * How a scope's tools reach the model: `native` sends each visible tool as a JSON-schema function;
 * `ptc` sends only the run_code transport, and the tools become an SDK inside programs.
 */
export type PresentationMode = 'native' | 'ptc';

export interface ToolRuntimeConfig {
  /** The mode of every scope that does not declare its own with `presentAs` (default `native`). */
  readonly mode?: PresentationMode;
}

/** One call as every hook sees it. Frozen; `args` is a private JSON snapshot. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: JsonValue;
  /** Set for nested calls (a program's sub-call carries its run_code call). */
  readonly parent?: ToolCallRef;
  /** The scope whose visibility, guards and hooks apply. */
  readonly scope: Context;
  /** Aborted when the call is (a hook that waits, e.g. for an approval, stops waiting then). */
  readonly signal?: AbortSignal;
}

/** A `tools/pre-execute` listener returns this to stop the call before the body runs. */
export interface BlockDecision {
  readonly block: string;
}

/** A `tools/post-execute` listener may block the result or replace its content. */
export type PostExecuteDecision = BlockDecision | { readonly content: string };

/** A guard returns a reason to deny; guards can only narrow what is allowed (monotonic). */
export type ToolGuard = (call: ToolCall) => string | undefined | Promise<string | undefined>;

/** Restricts visibility within a scope: an allowlist of names or a predicate. */
export type ToolFilter = readonly string[] | ((tool: ToolSchema) => boolean);

export type ExecutionMode = 'parallel' | 'exclusive';

export interface ToolResultEvent {
  readonly call: ToolCall;
  readonly result: ToolCallResult;
}

export interface ExecuteOptions {
  readonly signal?: AbortSignal;
  readonly parent?: ToolCallRef;
  /** Whose visibility applies; default: the context this view of the service belongs to. */
  readonly scope?: Context;
  /** The call id; default: a fresh `call_<n>`. */
  readonly id?: string;
  /** The session's spill store, handed to the body as `exec.spill` (docs/sessions.md, "Spill"). */
  readonly spill?: SpillStore;
}

declare module '../context/context.js' {
  interface Events {
    /** Serial: the first listener that returns a BlockDecision stops the call. */
    'tools/pre-execute'(call: ToolCall): BlockDecision | undefined | Promise<BlockDecision | undefined>;
    /** Middleware around the tool body: call `next()` to run the rest of the chain and the body. */
    'tools/execute'(call: ToolCall, next: () => Promise<JsonValue | undefined>): Promise<JsonValue | undefined>;
    /** Serial: may block the result or replace its content. */
    'tools/post-execute'(
      call: ToolCall,
      result: ToolCallResult,
    ): PostExecuteDecision | undefined | Promise<PostExecuteDecision | undefined>;
    /** Notification of the final, immutable outcome of every call. */
    'tools/result'(event: ToolResultEvent): void;
  }
  interface Services {
    tools: ToolRuntime;
  }
}

interface Entry {
  readonly def: AnyToolDefinition;
  readonly validateArgs: SchemaValidator;
  readonly validateOutput: SchemaValidator | undefined;
}

interface Scoped<T> {
  readonly owner: Context;
  readonly value: T;
}

/** Shared by every context's view of the service. */
class ToolStore {
  readonly tools = new Map<string, Entry>();
  readonly layers: Scoped<ToolFilter>[] = [];
  readonly guards: Scoped<ToolGuard>[] = [];
  readonly presentations: Scoped<PresentationMode>[] = [];
  transport: Entry | undefined;
  private nextCallNumber = 1;

  readonly defaultMode: PresentationMode;

  constructor(defaultMode: PresentationMode) {
    this.defaultMode = defaultMode;
  }

  newCallId(): string {
    return `call_${this.nextCallNumber++}`;
  }
}

export class ToolRuntime implements ContextBound<ToolRuntime> {
  private readonly store: ToolStore;
  private readonly ctx: Context;

  /** Creates the service for a container: `ctx.provide('tools', new ToolRuntime(ctx, { mode }))`. */
  constructor(ctx: Context, config: ToolRuntimeConfig = {}) {
    const mode = config.mode ?? 'native';
    if (mode !== 'native' && mode !== 'ptc') {
      throw new ConfigError(`tools.mode must be "native" or "ptc", got ${JSON.stringify(mode)}.`);
    }
    this.ctx = ctx;
    this.store = new ToolStore(mode);
  }

  /** @internal each context gets a view (same store) whose registrations are effects of that context. */
  [bindContext](ctx: Context): ToolRuntime {
    const view = Object.create(ToolRuntime.prototype) as ToolRuntime;
    return Object.assign(view, { ctx, store: this.store });
  }

  /**
   * Registers a tool as an effect of the calling context: disposing that plugin removes the tool.
   * Duplicate and reserved names are CONFIG errors; so are an input schema ajv cannot compile, a
   * `$schema` of an unsupported dialect and an example the input schema rejects (for a vetted
   * definition, vetted-schemas.ts, the compile waits for the first call and examples are not checked).
   */
  register(def: AnyToolDefinition): Disposer {
    const name = def.name;
    if (RESERVED_TOOL_NAMES.has(name)) {
      throw new ConfigError(`Tool name "${name}" is reserved for the PTC transport; rename the tool.`);
    }
    if (this.store.tools.has(name)) {
      throw new ConfigError(`A tool named "${name}" is already registered; tool names must be unique.`);
    }
    const entry = compileEntry(def);
    return this.ctx.effect(() => {
      this.store.tools.set(name, entry);
      return () => {
        if (this.store.tools.get(name) === entry) this.store.tools.delete(name);
      };
    });
  }

  /** Adds a visibility layer for the calling context and everything below it. */
  restrict(filter: ToolFilter): Disposer {
    return this.addScoped(this.store.layers, filter);
  }

  /** Adds a guard for calls in the calling context's scope and below. */
  guard(guard: ToolGuard): Disposer {
    return this.addScoped(this.store.guards, guard);
  }

  /** Declares the presentation mode of the calling context and everything below it (nearest wins). */
  presentAs(mode: PresentationMode): Disposer {
    if (mode !== 'native' && mode !== 'ptc') {
      throw new ConfigError(`presentAs expects "native" or "ptc", got ${JSON.stringify(mode)}.`);
    }
    return this.addScoped(this.store.presentations, mode);
  }

  /** The presentation mode of a scope: its nearest `presentAs` declaration, else the configured default. */
  modeFor(scope: Context = this.ctx): PresentationMode {
    for (let at: Context | undefined = scope; at; at = at.parent) {
      for (let i = this.store.presentations.length - 1; i >= 0; i--) {
        const item = this.store.presentations[i]!;
        if (item.owner === at) return item.value;
      }
    }
    return this.store.defaultMode;
  }

  /**
   * Installs the PTC transport (`run_code`) as an effect of the calling context. It stays outside
   * registration and restriction layers; only ptc scopes see or execute it.
   */
  provideTransport(def: AnyToolDefinition): Disposer {
    if (def.name !== RUN_CODE_TOOL_NAME) {
      throw new ConfigError(`The PTC transport must be named "${RUN_CODE_TOOL_NAME}", got ${JSON.stringify(def.name)}.`);
    }
    if (this.store.transport) throw new ConfigError('A PTC transport is already installed; dispose it first.');
    const entry = compileEntry(def);
    return this.ctx.effect(() => {
      this.store.transport = entry;
      return () => {
        if (this.store.transport === entry) this.store.transport = undefined;
      };
    });
  }

  /**
   * The tools sent to the model for a scope: its visible tools in native mode; only run_code in ptc
   * mode. PTC without a transport (no code runtime loaded) fails with RUNTIME_UNAVAILABLE.
   */
  wireTools(scope: Context = this.ctx): ToolSchema[] {
    if (this.modeFor(scope) === 'native') return this.schemas(scope);
    if (!this.store.transport) {
      throw new RuntimeUnavailableError(
        'PTC mode needs a code runtime, and none is loaded: load the ptc plugin with a runtime (e.g. createNodeRuntime) or present the tools natively.',
      );
    }
    return [toSchema(this.store.transport.def)];
  }

  /** The visible tools of a scope (default: the calling context), sorted by name. */
  schemas(scope: Context = this.ctx): ToolSchema[] {
    const out: ToolSchema[] = [];
    for (const name of [...this.store.tools.keys()].sort(compareNames)) {
      const def = this.resolve(name, scope);
      if (def) out.push(toSchema(def));
    }
    return out;
  }

  /** The definition of a tool if it is visible in the scope. */
  get(name: string, scope: Context = this.ctx): AnyToolDefinition | undefined {
    return this.resolve(name, scope);
  }

  /**
   * Whether the registered tool `name` declares isConcurrencySafe, whatever its visibility: for a
   * visibility predicate, which must not resolve through the layers it belongs to (docs/plan-mode.md).
   */
  declaresConcurrencySafe(name: string): boolean {
    return this.store.tools.get(name)?.def.isConcurrencySafe === true;
  }

  /**
   * 'parallel' only for a tool this call may execute that declares isConcurrencySafe: true;
   * otherwise (unknown and collapsed names too) 'exclusive'. `parent` marks a nested call as in execute.
   */
  executionMode(name: string, options: { scope?: Context; parent?: ToolCallRef } = {}): ExecutionMode {
    const target = this.resolveExecution(name, options.scope ?? this.ctx, options.parent !== undefined);
    return target.def?.isConcurrencySafe === true ? 'parallel' : 'exclusive';
  }

  /**
   * Runs one call through the full pipeline: resolve -> validate -> tools/pre-execute -> guards ->
   * tools/execute around the body -> tools/post-execute -> finalizeContent -> tools/result.
   * Never throws for a tool failure: failures are results with `isError` and a stable code.
   */
  async execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolCallResult> {
    const scope = options.scope ?? this.ctx;
    const id = options.id ?? this.store.newCallId();
    const snapshot = snapshotArgs(args);
    const call: ToolCall = Object.freeze({
      id,
      name,
      args: snapshot.ok ? snapshot.value : null,
      ...(options.parent ? { parent: Object.freeze({ ...options.parent }) } : {}),
      scope,
      ...(options.signal ? { signal: options.signal } : {}),
    });

    const target = this.resolveExecution(name, scope, call.parent !== undefined);
    const def = target.def;
    let result = await this.run(call, target, snapshot, options.signal, options.spill);
    if (def?.finalizeContent) {
      try {
        result = { ...result, content: def.finalizeContent(result) };
      } catch (error) {
        result = failure('TOOL_FAILED', `finalizeContent of tool "${name}" failed: ${messageOf(error)}`);
      }
    }
    const frozen = deepFreeze({ ...result });
    this.ctx.emit('tools/result', Object.freeze({ call, result: frozen }));
    return frozen;
  }

  private async run(
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
      return failure('UNKNOWN_TOOL', target.collapsed ? collapsedMessage(call.name) : this.unknownToolMessage(call.name, call.scope));
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

    const decision = await this.hook('tools/pre-execute', () => this.ctx.serial('tools/pre-execute', call));
    if (!decision.ok) return decision.result;
    if (decision.value) return failure('PERMISSION_DENIED', `The call to "${call.name}" was blocked: ${decision.value.block}`);

    for (const guard of this.scopedFor(this.store.guards, call.scope)) {
      const verdict = await this.hook('guard', () => guard(call));
      if (!verdict.ok) return verdict.result;
      if (verdict.value !== undefined) return failure('PERMISSION_DENIED', `The call to "${call.name}" was denied: ${verdict.value}`);
    }

    if (signal?.aborted) return failure('ABORTED', `The call to "${call.name}" was aborted before it started.`);
    let result = await this.runBody(call, args, def, entry, signal, spill);

    const post = await this.hook('tools/post-execute', () => this.ctx.serial('tools/post-execute', call, result));
    if (!post.ok) return post.result;
    if (post.value && 'block' in post.value) {
      return failure('PERMISSION_DENIED', `The result of "${call.name}" was blocked: ${post.value.block}`);
    }
    if (post.value && 'content' in post.value) result = { ...result, content: post.value.content };
    return result;
  }

  private async runBody(
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
    const chain = this.ctx.listeners('tools/execute').reduceRight<() => Promise<JsonValue | undefined>>(
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
  private async hook<T>(
    what: string,
    step: () => T | Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; result: ToolCallResult }> {
    try {
      return { ok: true, value: await step() };
    } catch (error) {
      return { ok: false, result: failure('TOOL_FAILED', `A ${what} hook failed: ${messageOf(error)}`) };
    }
  }

  /**
   * What a call may execute (executor collapse, docs/ptc-mode.md): in a ptc scope a direct call (no parent)
   * may only name run_code, and a native name is "collapsed" — unknown to the executor, before any
   * hook sees it. Nested calls (program sub-calls) reach every visible tool, never run_code itself.
   */
  private resolveExecution(name: string, scope: Context, nested: boolean): ExecutionTarget {
    const ptc = this.modeFor(scope) === 'ptc';
    if (name === RUN_CODE_TOOL_NAME) {
      const transport = ptc && !nested ? this.store.transport : undefined;
      return transport ? { def: transport.def, entry: transport, collapsed: false } : { collapsed: false };
    }
    const def = this.resolve(name, scope);
    if (ptc && !nested) return { collapsed: def !== undefined };
    return def ? { def, entry: this.store.tools.get(name)!, collapsed: false } : { collapsed: false };
  }

  private resolve(name: string, scope: Context): AnyToolDefinition | undefined {
    const entry = this.store.tools.get(name);
    if (!entry) return undefined;
    let schema: ToolSchema | undefined;
    for (const filter of this.scopedFor(this.store.layers, scope)) {
      const visible = typeof filter === 'function' ? filter((schema ??= toSchema(entry.def))) : filter.includes(name);
      if (!visible) return undefined;
    }
    return entry.def;
  }

  private unknownToolMessage(name: string, scope: Context): string {
    const visible = this.schemas(scope).map((t) => t.name);
    const list = visible.length > 0 ? visible.map((n) => JSON.stringify(n)).join(', ') : '(none)';
    return `Unknown tool ${JSON.stringify(name)}.${didYouMean(name, visible)} Call one of the available tools instead: ${list}.`;
  }

  private addScoped<T>(list: Scoped<T>[], value: T): Disposer {
    const item: Scoped<T> = { owner: this.ctx, value };
    return this.ctx.effect(() => {
      list.push(item);
      return () => {
        const at = list.indexOf(item);
        if (at >= 0) list.splice(at, 1);
      };
    });
  }

  private scopedFor<T>(list: readonly Scoped<T>[], scope: Context): T[] {
    return list.filter((item) => isScopeWithin(scope, item.owner)).map((item) => item.value);
  }
}

/**
 * Compiles a definition's schemas once and checks its examples against them; a schema ajv rejects,
 * a parsing schema without `~standard`, or an example that does not fit is a CONFIG error naming the tool.
 * A vetted definition (vetted-schemas.ts) has its schemas compiled on first use and its examples
 * left to the test that vetted them.
 */
function compileEntry(def: AnyToolDefinition): Entry {
  if (def.inputSchema === undefined) {
    throw new ConfigError(
      `Tool "${def.name}" has no inputSchema; a tool described by zod schemas (input/output) must be made with defineTool(...) before it is registered.`,
    );
  }
  const vetted = schemasVetted(def);
  const compile = vetted ? deferSchema : compileSchema;
  const validateArgs = compile(def.inputSchema, `input schema of tool "${def.name}"`);
  const validateOutput =
    def.outputSchema === undefined ? undefined : compile(def.outputSchema, `output schema of tool "${def.name}"`);
  for (const key of ['input', 'output'] as const) {
    if (def[key] !== undefined && !isParsingSchema(def[key])) {
      throw new ConfigError(`Tool "${def.name}": ${key} must be a zod schema (or another schema with the Standard Schema "~standard" interface); define the tool with defineTool.`);
    }
  }
  if (def.examples !== undefined && !vetted) {
    if (!Array.isArray(def.examples)) throw new ConfigError(`Tool "${def.name}": examples must be an array of argument objects.`);
    def.examples.forEach((example: unknown, index) => {
      const problems = exampleProblems(def, validateArgs, example);
      if (problems.length > 0) {
        throw new ConfigError(
          `Tool "${def.name}": examples[${index}] does not match the tool's input schema:\n${problems.map((p) => `  ${p}`).join('\n')}\n` +
            'Fix the example or remove it.',
        );
      }
    });
  }
  return { def, validateArgs, validateOutput };
}

/** Why an example is not a valid call: not JSON, rejected by ajv, or (when it parses synchronously) by the parsing schema. */
function exampleProblems(def: AnyToolDefinition, validateArgs: SchemaValidator, example: unknown): string[] {
  const json = checkJson(example);
  if (!json.ok) return [`${json.path || '(root)'}: ${json.reason}`];
  const problems = validateArgs(example);
  if (problems.length > 0 || !def.input) return problems;
  const parsed = parseNow(def.input, example);
  return parsed && !parsed.ok ? parsed.problems : [];
}

type Snapshot = { ok: true; value: JsonValue } | { ok: false; reason: string };

interface ExecutionTarget {
  readonly def?: AnyToolDefinition;
  readonly entry?: Entry;
  /** A visible native tool that a direct call in a ptc scope may not execute. */
  readonly collapsed: boolean;
}

function collapsedMessage(name: string): string {
  return (
    `Unknown tool ${JSON.stringify(name)}: in this session tools are reachable only inside ${RUN_CODE_TOOL_NAME}. ` +
    `Call ${RUN_CODE_TOOL_NAME} with { code, description }, where code awaits tools[${JSON.stringify(name)}](args) ` +
    `and returns what you need.`
  );
}

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

function isScopeWithin(scope: Context, owner: Context): boolean {
  for (let at: Context | undefined = scope; at; at = at.parent) if (at === owner) return true;
  return false;
}

function toSchema(def: AnyToolDefinition): ToolSchema {
  return {
    name: def.name,
    description: def.description,
    inputSchema: def.inputSchema,
    ...(def.outputSchema !== undefined ? { outputSchema: def.outputSchema } : {}),
  };
}

/** Code-unit order: deterministic across locales. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
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
