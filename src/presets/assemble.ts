// Assembly: loads a preset's rows, in order, into one context. A row that cannot load (unknown name,
// bad config, failing apply, a module that does not import) or is still pending at the end is a
// CONFIG error naming the row and where it is written (docs/presets.md, "Errors").

import type { Context, Plugin, PluginHandle } from '../context/context.js';
import { ConfigError } from '../errors.js';
import { firstLine, isModulePath, isPackageName, loadPluginFile, loadPluginPackage, type LoadedPluginModule } from './plugin-module.js';
import type { PresetRow } from './preset-file.js';
import { rowKindOf, type RowKinds } from '../row-kind.js';

/** Which service a row waits for -> the row that provides it, for the "unavailable" hint. */
const PROVIDERS: Readonly<Record<string, string>> = { ptcRuntime: 'node-runtime', llm: 'llm', sessions: 'sessions', logger: 'logger', loop: 'loop' };

export interface LoadedRow {
  readonly row: PresetRow;
  /** The plugin's own name (a module's `name` export). */
  readonly plugin: string;
  /** The file or package a module row came from. */
  readonly source?: string;
  readonly handle: PluginHandle;
  /** The plugin object the row loaded (a reload restores it when a new version fails). */
  readonly definition: Plugin<unknown>;
}

/** Where one package row resolves from (docs/presets.md, "Trust"). */
export interface PackageBase {
  readonly from: string;
  /** Refuse a package that would load from inside this (untrusted) workspace. */
  readonly untrustedWorkspace?: string;
}

export interface AssembleOptions {
  /** What the shipped row names stand for (shipped-rows.ts); other rows are plugin files or packages. */
  readonly kinds: RowKinds;
  /** Where package-name rows are resolved from, unless `packageBase` says otherwise for a row. */
  readonly workspace: string;
  /** Per row: where its package resolves from; default `{ from: workspace }`. */
  readonly packageBase?: (row: PresetRow) => PackageBase;
  /** Imports a plugin-file row (a version of it, docs/plugin-reload.md); default `loadPluginFile`. */
  readonly loadFile?: (row: PresetRow) => Promise<LoadedPluginModule>;
  /** Runs after the last row and before the check for pending rows (the default service rows, service-rows.ts). */
  readonly afterRows?: () => Promise<unknown>;
}

/** The rows assembled into a context, as they load (harness_inspect reads them). */
const ASSEMBLED = new WeakMap<Context, LoadedRow[]>();

/** The rows `assembleRows` loaded into `ctx` so far, in order; empty for a context nothing was assembled into. */
export function assembledRows(ctx: Context): readonly LoadedRow[] {
  return ASSEMBLED.get(ctx) ?? [];
}

/** Puts `entry` in place of the loaded row with the same index (a reloaded plugin file, docs/plugin-reload.md). */
export function replaceAssembledRow(ctx: Context, entry: LoadedRow): void {
  const loaded = ASSEMBLED.get(ctx);
  const at = loaded?.findIndex((e) => e.row.index === entry.row.index) ?? -1;
  if (loaded !== undefined && at >= 0) loaded[at] = entry;
}

/** `row 3 \`tool-presentation\`` at `file:line`: how every message names a row. */
export function describeRow(row: PresetRow): string {
  return `${row.at}: row ${row.index} \`${row.name}\``;
}

/** Loads every row into `ctx`; throws CONFIG for the first row that fails or stays pending. */
export async function assembleRows(ctx: Context, rows: readonly PresetRow[], options: AssembleOptions): Promise<LoadedRow[]> {
  const loaded: LoadedRow[] = [];
  ASSEMBLED.set(ctx, loaded);
  // A failing apply is reported by the error below, not as a stray listener line on stderr.
  const previous = ctx.setListenerErrorHandler((error, event) => {
    if (!event.startsWith('plugin ')) previous(error, event);
  });
  try {
    for (const row of rows) {
      const { plugin, source } = await resolveRow(row, options);
      let handle: PluginHandle;
      // A row without config hands a plugin with a schema `{}`, so its defaults apply.
      const config = row.config === undefined && plugin.config ? {} : row.config;
      try {
        handle = ctx.plugin(plugin, config);
      } catch (error) {
        throw new ConfigError(`${describeRow(row)}: ${indentTail(firstLineOrConfig(error))}`);
      }
      loaded.push({ row, plugin: plugin.name, ...(source !== undefined ? { source } : {}), handle, definition: plugin });
      // This row, and any earlier row it unblocked, finish applying before the next row loads.
      for (const entry of loaded) await entry.handle.settled();
      for (const entry of loaded) {
        if (entry.handle.state === 'failed') {
          throw new ConfigError(`${describeRow(entry.row)} failed: ${firstLine(entry.handle.error)}`);
        }
      }
    }
    await options.afterRows?.();
    for (const entry of loaded) {
      if (entry.handle.state !== 'pending') continue;
      const missing = entry.handle.missing();
      const hints = missing.map((name) => (PROVIDERS[name] ? `add a \`${PROVIDERS[name]}\` row` : `add a row that provides ${name}`));
      throw new ConfigError(
        `${describeRow(entry.row)} is unavailable: waits for ${missing.join(', ')}; ${[...new Set(hints)].join('; ')}.`,
      );
    }
    return loaded;
  } finally {
    ctx.setListenerErrorHandler(previous);
  }
}

async function resolveRow(row: PresetRow, options: AssembleOptions): Promise<{ plugin: Plugin<unknown>; source?: string }> {
  const kind = rowKindOf(options.kinds, row.name);
  if (kind) return { plugin: await kind.load(row.config) };
  try {
    if (isModulePath(row.name)) return await (options.loadFile?.(row) ?? loadPluginFile(row.name, row.baseDir));
    if (isPackageName(row.name)) {
      const base = options.packageBase?.(row) ?? { from: options.workspace };
      return await loadPluginPackage(row.name, base.from, unknownHint(options.kinds), base.untrustedWorkspace);
    }
  } catch (error) {
    throw new ConfigError(`${describeRow(row)}: ${firstLine(error)}`);
  }
  throw new ConfigError(`${describeRow(row)}: unknown plugin; ${unknownHint(options.kinds)}.`);
}

function unknownHint(kinds: RowKinds): string {
  return `use a shipped plugin (${Object.keys(kinds).join(', ')}), a path to a plugin file (./my-plugin.ts, relative to the preset file) or an installed package name`;
}

/** Config errors span lines (one per problem); other errors keep their first line. */
function firstLineOrConfig(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  return firstLine(error);
}

function indentTail(message: string): string {
  return message.replace(/\n/g, '\n  ');
}
