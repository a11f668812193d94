// What a scope sees and may execute (docs/ptc-mode.md): its presentation mode (the nearest
// `presentAs`), the tools visible through its layers, the tools sent to the model (all visible ones
// natively, only run_code in ptc mode), and executor collapse: in a ptc scope a direct call may name
// only run_code.

import type { Context } from '../context/context.js';
import { didYouMean } from '../did-you-mean.js';
import { RuntimeUnavailableError } from '../errors.js';
import { RUN_CODE_TOOL_NAME, type PresentationMode } from './tool-calls.js';
import { compareNames, scopedFor, toSchema, type Entry, type ToolStore } from './tool-store.js';
import type { AnyToolDefinition, ToolSchema } from './types.js';

/** The presentation mode of a scope: its nearest `presentAs` declaration, else the configured default. */
export function modeFor(store: ToolStore, scope: Context): PresentationMode {
  for (let at: Context | undefined = scope; at; at = at.parent) {
    for (let i = store.presentations.length - 1; i >= 0; i--) {
      const item = store.presentations[i]!;
      if (item.owner === at) return item.value;
    }
  }
  return store.defaultMode;
}

/** The definition of `name` when it is registered and every layer over `scope` lets it through. */
export function visibleTool(store: ToolStore, name: string, scope: Context): AnyToolDefinition | undefined {
  const entry = store.tools.get(name);
  if (!entry) return undefined;
  let schema: ToolSchema | undefined;
  for (const filter of scopedFor(store.layers, scope)) {
    const visible = typeof filter === 'function' ? filter((schema ??= toSchema(entry.def))) : filter.includes(name);
    if (!visible) return undefined;
  }
  return entry.def;
}

/** The visible tools of a scope, sorted by name. */
export function visibleSchemas(store: ToolStore, scope: Context): ToolSchema[] {
  const out: ToolSchema[] = [];
  for (const name of [...store.tools.keys()].sort(compareNames)) {
    const def = visibleTool(store, name, scope);
    if (def) out.push(toSchema(def));
  }
  return out;
}

/**
 * The tools sent to the model for a scope: its visible tools in native mode; only run_code in ptc
 * mode. PTC without a transport (no code runtime loaded) fails with RUNTIME_UNAVAILABLE.
 */
export function wireSchemas(store: ToolStore, scope: Context): ToolSchema[] {
  if (modeFor(store, scope) === 'native') return visibleSchemas(store, scope);
  if (!store.transport) {
    throw new RuntimeUnavailableError(
      'PTC mode needs a code runtime, and none is loaded: load the ptc plugin with a runtime (e.g. createNodeRuntime) or present the tools natively.',
    );
  }
  return [toSchema(store.transport.def)];
}

export interface ExecutionTarget {
  readonly def?: AnyToolDefinition;
  readonly entry?: Entry;
  /** A visible native tool that a direct call in a ptc scope may not execute. */
  readonly collapsed: boolean;
}

/**
 * What a call may execute (executor collapse, docs/ptc-mode.md): in a ptc scope a direct call (no parent)
 * may only name run_code, and a native name is "collapsed" — unknown to the executor, before any
 * hook sees it. Nested calls (program sub-calls) reach every visible tool, never run_code itself.
 */
export function executionTarget(store: ToolStore, name: string, scope: Context, nested: boolean): ExecutionTarget {
  const ptc = modeFor(store, scope) === 'ptc';
  if (name === RUN_CODE_TOOL_NAME) {
    const transport = ptc && !nested ? store.transport : undefined;
    return transport ? { def: transport.def, entry: transport, collapsed: false } : { collapsed: false };
  }
  const def = visibleTool(store, name, scope);
  if (ptc && !nested) return { collapsed: def !== undefined };
  return def ? { def, entry: store.tools.get(name)!, collapsed: false } : { collapsed: false };
}

/** UNKNOWN_TOOL's message: the name, a "did you mean", and the tools the scope can call. */
export function unknownToolMessage(store: ToolStore, name: string, scope: Context): string {
  const visible = visibleSchemas(store, scope).map((t) => t.name);
  const list = visible.length > 0 ? visible.map((n) => JSON.stringify(n)).join(', ') : '(none)';
  return `Unknown tool ${JSON.stringify(name)}.${didYouMean(name, visible)} Call one of the available tools instead: ${list}.`;
}

export function collapsedMessage(name: string): string {
  return (
    `Unknown tool ${JSON.stringify(name)}: in this session tools are reachable only inside ${RUN_CODE_TOOL_NAME}. ` +
    `Call ${RUN_CODE_TOOL_NAME} with { code, description }, where code awaits tools[${JSON.stringify(name)}](args) ` +
    `and returns what you need.`
  );
}
