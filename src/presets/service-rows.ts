// The services every agent's harness has (docs/architecture.md, "Services"): the model client, the
// session store, the logger and the loop, each provided by a row a preset lists (the shipped presets
// name them) and replaceable by any plugin row that provides the same service. A preset that names no
// row for one gets its default row after the preset's own rows, so older presets keep working.

import type { Context, Plugin, PluginHandle } from '../context/context.js';
import { ConfigError } from '../errors.js';
import { describeRow, type LoadedRow } from './assemble.js';
import { firstLine } from './plugin-module.js';
import type { PresetRow } from './preset-file.js';
import { rowKindOf, type RowKinds } from '../row-kind.js';

/** Service -> the shipped row that provides it by default. */
export const SERVICE_ROWS: readonly { readonly service: string; readonly row: string }[] = Object.freeze([
  { service: 'logger', row: 'logger' },
  { service: 'llm', row: 'llm' },
  { service: 'sessions', row: 'sessions' },
  { service: 'loop', row: 'loop' },
]);

/**
 * The `loop` row as assembly knows it: the loop is the agent layer's (src/agent/loop-service.ts), which
 * assembly does not import. Front-ends hand createHarness the agent's table (src/agent/agent-rows.ts),
 * where `loop` is the real row; a harness built with the shipped table alone (tools, programs, no
 * agent) loads this one, which provides nothing.
 */
export const unboundLoopPlugin: Plugin = {
  name: 'loop',
  apply() {},
};

/** Where a default row is said to come from. */
const DEFAULT_AT = 'default';

const DEFAULTED = new WeakMap<Context, LoadedRow[]>();

/** The default rows `loadDefaultServices` added to `ctx`. */
export function defaultedRows(ctx: Context): readonly LoadedRow[] {
  return DEFAULTED.get(ctx) ?? [];
}

/**
 * For each service no row provided, loads its default row (when `kinds` has it) after the preset's
 * `after` rows. CONFIG, naming the row, when one fails.
 */
export async function loadDefaultServices(ctx: Context, kinds: RowKinds, after: number): Promise<LoadedRow[]> {
  const loaded: LoadedRow[] = [];
  DEFAULTED.set(ctx, loaded);
  for (const { service, row: name } of SERVICE_ROWS) {
    if (ctx.get(service) !== undefined) continue;
    const kind = rowKindOf(kinds, name);
    if (kind === undefined) continue;
    // A shipped row: nothing of it resolves against a directory.
    const row: PresetRow = { index: after + loaded.length + 1, name, at: `${DEFAULT_AT} (no row provides ${service})`, baseDir: '' };
    const plugin = await kind.load(undefined);
    const handle = ctx.plugin(plugin, plugin.config ? {} : undefined);
    loaded.push({ row, plugin: plugin.name, handle, definition: plugin });
    if ((await handle.settled()) === 'failed') throw new ConfigError(`${describeRow(row)} failed: ${firstLine(handle.error)}`);
  }
  return loaded;
}

/** One service and who provides it, as `ptc presets show` and harness_inspect list them. */
export interface ServiceProvider {
  readonly name: string;
  /** The providing plugin's own name (`root` for the harness's own services). */
  readonly provider: string;
  /** The row that loaded the provider: a preset row, a default row, or none for the harness's own. */
  readonly row?: { readonly index: number; readonly name: string; readonly default: boolean };
}

/** Every service of the container around `root` and the row that provides it. */
export function serviceProviders(root: Context, rows: readonly LoadedRow[]): ServiceProvider[] {
  const snapshot = root.inspect();
  const contextOf = new Map<PluginHandle, Context>();
  for (const { handle, context } of snapshot.plugins) if (context) contextOf.set(handle, context);
  const defaults = new Set(defaultedRows(root));
  const all = [...rows, ...defaults];
  const rowOf = (owner: Context): LoadedRow | undefined => {
    for (let at: Context | undefined = owner; at !== undefined && at !== root; at = at.parent) {
      const found = all.find((entry) => contextOf.get(entry.handle) === at);
      if (found) return found;
    }
    return undefined;
  };
  return snapshot.services.map(({ name, provider, context }) => {
    const entry = rowOf(context);
    return {
      name,
      provider,
      ...(entry !== undefined ? { row: { index: entry.row.index, name: entry.row.name, default: defaults.has(entry) } } : {}),
    };
  });
}
