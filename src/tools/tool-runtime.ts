// The ToolRuntime service (`ctx.tools`): one registry of tool definitions with scoped visibility
// layers, guards and presentation declarations, and the ONE execution pipeline every call
// traverses, direct or from inside a program. The parts: the registry's state (tool-store.ts), what
// a scope sees and may execute (tool-presentation.ts), the pipeline (tool-pipeline.ts) and the shapes
// hooks see (tool-calls.ts); this class is the service over them.

import { bindContext, type Context, type ContextBound, type Disposer } from '../context/context.js';
import { ConfigError } from '../errors.js';
import {
  RESERVED_TOOL_NAMES,
  RUN_CODE_TOOL_NAME,
  type ExecuteOptions,
  type ExecutionMode,
  type PresentationMode,
  type ToolFilter,
  type ToolGuard,
  type ToolRuntimeConfig,
} from './tool-calls.js';
import { executeCall } from './tool-pipeline.js';
import { executionTarget, modeFor, visibleSchemas, visibleTool, wireSchemas } from './tool-presentation.js';
import { addScoped, compileEntry, ToolStore } from './tool-store.js';
import type { AnyToolDefinition, ToolCallRef, ToolCallResult, ToolSchema } from './types.js';

export {
  RESERVED_TOOL_NAMES,
  RUN_CODE_TOOL_NAME,
  type BlockDecision,
  type ExecuteOptions,
  type ExecutionMode,
  type PostExecuteDecision,
  type PresentationMode,
  type ToolCall,
  type ToolFilter,
  type ToolGuard,
  type ToolResultEvent,
  type ToolRuntimeConfig,
} from './tool-calls.js';
export { compareNames } from './tool-store.js';

declare module '../context/context.js' {
  interface Services {
    tools: ToolRuntime;
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
    return addScoped(this.ctx, this.store.layers, filter);
  }

  /** Adds a guard for calls in the calling context's scope and below. */
  guard(guard: ToolGuard): Disposer {
    return addScoped(this.ctx, this.store.guards, guard);
  }

  /** Declares the presentation mode of the calling context and everything below it (nearest wins). */
  presentAs(mode: PresentationMode): Disposer {
    if (mode !== 'native' && mode !== 'ptc') {
      throw new ConfigError(`presentAs expects "native" or "ptc", got ${JSON.stringify(mode)}.`);
    }
    return addScoped(this.ctx, this.store.presentations, mode);
  }

  /** The presentation mode of a scope: its nearest `presentAs` declaration, else the configured default. */
  modeFor(scope: Context = this.ctx): PresentationMode {
    return modeFor(this.store, scope);
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
    return wireSchemas(this.store, scope);
  }

  /** The visible tools of a scope (default: the calling context), sorted by name. */
  schemas(scope: Context = this.ctx): ToolSchema[] {
    return visibleSchemas(this.store, scope);
  }

  /** The definition of a tool if it is visible in the scope. */
  get(name: string, scope: Context = this.ctx): AnyToolDefinition | undefined {
    return visibleTool(this.store, name, scope);
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
    const target = executionTarget(this.store, name, options.scope ?? this.ctx, options.parent !== undefined);
    return target.def?.isConcurrencySafe === true ? 'parallel' : 'exclusive';
  }

  /**
   * Runs one call through the full pipeline (tool-pipeline.ts): resolve -> validate ->
   * tools/pre-execute -> guards -> tools/execute around the body -> tools/post-execute ->
   * finalizeContent -> tools/result. Never throws for a tool failure: failures are results with
   * `isError` and a stable code.
   */
  execute(name: string, args: unknown, options: ExecuteOptions = {}): Promise<ToolCallResult> {
    return executeCall(this.ctx, this.store, name, args, options);
  }
}
