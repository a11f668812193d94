// Assembly: loads a preset's rows, in order, into one context. A row that cannot load (unknown name,
// bad config, failing apply, a module that does not import) or is still pending at the end is a
// CONFIG error naming the row and where it is written (docs/presets.md, "Errors").

import type { Context, Plugin, PluginHandle } from '../context/context.js';
import { ConfigError } from '../errors.js';
import { builtinToolsPlugin } from './builtin-tools-plugin.js';
import { nodeRuntimePlugin } from './node-runtime-plugin.js';
import { firstLine, isModulePath, isPackageName, loadPluginFile, loadPluginPackage } from './plugin-module.js';
import type { PresetRow } from './preset-file.js';
import { toolPresentationPlugin } from './tool-presentation-plugin.js';

/**
 * Shipped row names -> the plugin for a row's config. The rows most presets have are imported with
 * this module; the others (MCP, the creator's tools, Python) when a preset names them, so a command
 * loads none of their modules otherwise (bench/cli-start.ts counts them).
 */
export const SHIPPED_PLUGINS: Readonly<Record<string, (config: unknown) => Plugin<unknown> | Promise<Plugin<unknown>>>> = Object.freeze({
  'builtin-tools': () => builtinToolsPlugin as Plugin<unknown>,
  'node-runtime': () => nodeRuntimePlugin as Plugin<unknown>,
  'tool-presentation': (config: unknown) => toolPresentationPlugin(config) as Plugin<unknown>,
  'creator-tools': async () => (await import('./creator-tools-plugin.js')).creatorToolsPlugin as Plugin<unknown>,
  mcp: async () => (await import('../mcp/client/plugin.js')).mcpPlugin as Plugin<unknown>,
  skills: async () => (await import('../skills/skills-plugin.js')).skillsPlugin as Plugin<unknown>,
  workflows: async () => (await import('../workflows/workflows-plugin.js')).workflowsPlugin as Plugin<unknown>,
  'python-runtime': async () => (await import('./python-runtime-plugin.js')).pythonRuntimePlugin as Plugin<unknown>,
});

/** Which service a row waits for -> the row that provides it, for the "unavailable" hint. */
const PROVIDERS: Readonly<Record<string, string>> = { ptcRuntime: 'node-runtime' };

export interface LoadedRow {
  readonly row: PresetRow;
  /** The plugin's own name (a module's `name` export). */
  readonly plugin: string;
  /** The file or package a module row came from. */
  readonly source?: string;
  readonly handle: PluginHandle;
}

/** Where one package row resolves from (docs/presets.md, "Trust"). */
export interface PackageBase {
  readonly from: string;
  /** Refuse a package that would load from inside this (untrusted) workspace. */
  readonly untrustedWorkspace?: string;
}

export interface AssembleOptions {
  /** Where package-name rows are resolved from, unless `packageBase` says otherwise for a row. */
  readonly workspace: string;
  /** Per row: where its package resolves from; default `{ from: workspace }`. */
  readonly packageBase?: (row: PresetRow) => PackageBase;
}

/** The rows assembled into a context, as they load (harness_inspect reads them). */
const ASSEMBLED = new WeakMap<Context, LoadedRow[]>();

/** The rows `assembleRows` loaded into `ctx` so far, in order; empty for a context nothing was assembled into. */
export function assembledRows(ctx: Context): readonly LoadedRow[] {
  return ASSEMBLED.get(ctx) ?? [];
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
      loaded.push({ row, plugin: plugin.name, ...(source !== undefined ? { source } : {}), handle });
      // This row, and any earlier row it unblocked, finish applying before the next row loads.
      for (const entry of loaded) await entry.handle.settled();
      for (const entry of loaded) {
        if (entry.handle.state === 'failed') {
          throw new ConfigError(`${describeRow(entry.row)} failed: ${firstLine(entry.handle.error)}`);
        }
      }
    }
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
  const shipped = Object.hasOwn(SHIPPED_PLUGINS, row.name) ? SHIPPED_PLUGINS[row.name] : undefined;
  if (shipped) return { plugin: await shipped(row.config) };
  try {
    if (isModulePath(row.name)) return await loadPluginFile(row.name, row.baseDir);
    if (isPackageName(row.name)) {
      const base = options.packageBase?.(row) ?? { from: options.workspace };
      return await loadPluginPackage(row.name, base.from, UNKNOWN_HINT, base.untrustedWorkspace);
    }
  } catch (error) {
    throw new ConfigError(`${describeRow(row)}: ${firstLine(error)}`);
  }
  throw new ConfigError(`${describeRow(row)}: unknown plugin; ${UNKNOWN_HINT}.`);
}

const UNKNOWN_HINT =
  `use a shipped plugin (${Object.keys(SHIPPED_PLUGINS).join(', ')}), ` +
  'a path to a plugin file (./my-plugin.ts, relative to the preset file) or an installed package name';

/** Config errors span lines (one per problem); other errors keep their first line. */
function firstLineOrConfig(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  return firstLine(error);
}

function indentTail(message: string): string {
  return message.replace(/\n/g, '\n  ');
}
