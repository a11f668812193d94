// Hot reload of plugin files between turns (docs/plugin-reload.md). A row that is a plugin file keeps
// the digest of the file and its local imports (plugin-graph.ts); at a turn boundary a changed digest
// imports the file anew under a version query, disposes the old row's scope (its listeners, effects,
// timers, services and tools) and applies the new one in its place. A new version that does not
// import, does not accept the row's config, throws in apply or stays pending leaves the old version
// applied again, and the report says why (CONFIG, naming the file and line where known).

import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'acorn';
import type { Context, PluginHandle } from '../context/context.js';
import { assembledRows, describeRow, replaceAssembledRow, type LoadedRow } from './assemble.js';
import { pluginGraph, type PluginGraph } from './plugin-graph.js';
import { firstLine, isModulePath, loadPluginFile } from './plugin-module.js';
import type { PresetRow } from './preset-file.js';
import { rowKindOf, type RowKinds } from '../row-kind.js';

/** What happened to one changed plugin file at a turn boundary. */
export interface PluginReload {
  /** The plugin file (absolute). */
  readonly file: string;
  /** `file:line: row N \`name\``: the row it is. */
  readonly row: string;
  /** `reloaded`: the new version is applied; `kept`: the old version runs on (see `error`). */
  readonly status: 'reloaded' | 'kept';
  /** The plugin's `name` export of the version now applied. */
  readonly plugin: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface ReloadReport {
  /** One entry per plugin file that changed since the last check; empty when nothing did. */
  readonly changes: readonly PluginReload[];
}

/** Refuses a changed file the user has not had a chance to review: the reason, or undefined to load it. */
export type ReloadRule = (row: PresetRow, graph: PluginGraph) => string | undefined;

export interface PluginReloader {
  /** Checks every plugin-file row and reloads the changed ones, one after another. */
  reload(): Promise<ReloadReport>;
}

/** The file a row names when it is a plugin file (not a shipped row, not a package). */
export function pluginFileOf(row: PresetRow, kinds: RowKinds): string | undefined {
  if (rowKindOf(kinds, row.name) !== undefined || !isModulePath(row.name)) return undefined;
  return path.resolve(row.baseDir, row.name);
}

/**
 * Takes the digests of `rows`' plugin files now (call it before assembling, so an edit made while
 * they load is seen at the first check) and returns the reloader for the rows assembled into `ctx`.
 */
export function watchPluginRows(ctx: Context, rows: readonly PresetRow[], kinds: RowKinds, mayLoad: ReloadRule): PluginReloader {
  const seen = new Map<number, { file: string; digest: string }>();
  for (const row of rows) {
    const file = pluginFileOf(row, kinds);
    if (file !== undefined) seen.set(row.index, { file, digest: pluginGraph(file).digest });
  }
  // A version already reported as kept is not reported (or imported) again each turn.
  const reported = new Map<number, string>();
  // A refusal is checked again every turn (trust may be granted meanwhile) but told once per version.
  const told = new Map<number, string>();
  return {
    async reload() {
      const changes: PluginReload[] = [];
      for (const entry of assembledRows(ctx)) {
        const known = seen.get(entry.row.index);
        if (known === undefined) continue;
        const graph = pluginGraph(known.file);
        if (graph.digest === known.digest || reported.get(entry.row.index) === graph.digest) continue;
        const outcome = await reloadRow(ctx, entry, known.file, graph, mayLoad);
        if (outcome.status === 'reloaded') {
          seen.set(entry.row.index, { file: known.file, digest: graph.digest });
          reported.delete(entry.row.index);
        } else if (outcome.retry !== true) {
          reported.set(entry.row.index, graph.digest);
        } else if (told.get(entry.row.index) === graph.digest) {
          continue;
        }
        if (outcome.retry === true) told.set(entry.row.index, graph.digest);
        changes.push(outcome.report);
      }
      return { changes };
    },
  };
}

async function reloadRow(
  ctx: Context,
  entry: LoadedRow,
  file: string,
  graph: PluginGraph,
  mayLoad: ReloadRule,
): Promise<{ status: 'reloaded' | 'kept'; report: PluginReload; retry?: boolean }> {
  const row = describeRow(entry.row);
  const kept = (message: string, retry?: boolean) => ({
    status: 'kept' as const,
    report: { file, row, status: 'kept' as const, plugin: entry.plugin, error: { code: 'CONFIG', message: `${row}: ${message}; the loaded version keeps running` } },
    ...(retry ? { retry } : {}),
  });
  let refusal: string | undefined;
  try {
    refusal = mayLoad(entry.row, graph);
  } catch (error) {
    refusal = `cannot check whether ${file} may load: ${firstLine(error)}`;
  }
  // Refused files are checked again next turn: trust may be granted meanwhile.
  if (refusal !== undefined) return kept(refusal, true);

  let next;
  try {
    next = await loadPluginFile(entry.row.name, entry.row.baseDir, graph.digest);
  } catch (error) {
    return kept(`the edited file does not load: ${locate(error, graph)}`);
  }
  const plugin = next.plugin;
  const config = entry.row.config === undefined && plugin.config ? {} : entry.row.config;
  if (plugin.config && !plugin.config.safeParse(config).success) {
    return kept(`the edited plugin does not accept the row's config: ${configProblem(plugin.config, config)}`);
  }

  // A failing apply is this report's error, not a stray line on stderr.
  const previous = ctx.setListenerErrorHandler((error, event) => {
    if (!event.startsWith('plugin ')) previous(error, event);
  });
  try {
    await entry.handle.dispose();
    let handle: PluginHandle;
    try {
      handle = ctx.plugin(plugin, config);
    } catch (error) {
      const restored = await restore(ctx, entry);
      replaceAssembledRow(ctx, { ...entry, handle: restored });
      return kept(`the edited plugin does not load: ${firstLine(error)}`);
    }
    const state = await handle.settled();
    if (state === 'active') {
      replaceAssembledRow(ctx, { ...entry, plugin: plugin.name, handle, definition: plugin });
      return { status: 'reloaded', report: { file, row, status: 'reloaded', plugin: plugin.name } };
    }
    const why = state === 'pending' ? `the edited plugin waits for ${handle.missing().join(', ')}, which nothing provides` : `the edited plugin's apply failed: ${locate(handle.error, graph)}`;
    await handle.dispose();
    const restored = await restore(ctx, entry);
    replaceAssembledRow(ctx, { ...entry, handle: restored });
    return kept(restored.state === 'active' ? why : `${why}; and the old version failed to apply again: ${firstLine(restored.error)}`);
  } finally {
    ctx.setListenerErrorHandler(previous);
  }
}

/** Applies the row's old plugin object again (its module is still loaded). */
async function restore(ctx: Context, entry: LoadedRow): Promise<PluginHandle> {
  const config = entry.row.config === undefined && entry.definition.config ? {} : entry.row.config;
  const handle = ctx.plugin(entry.definition, config);
  await handle.settled();
  return handle;
}

function configProblem(schema: NonNullable<LoadedRow['definition']['config']>, config: unknown): string {
  const parsed = schema.safeParse(config);
  if (parsed.success) return 'valid';
  return parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`).join('; ');
}

/** The error's first line, with `file:line` of the first plugin-graph file its stack names. */
function locate(error: unknown, graph: PluginGraph): string {
  const message = firstLine(error);
  // A module that does not import is wrapped (plugin-module.ts); Node's own error holds the place.
  const stackOf = (e: unknown) => (e instanceof Error && typeof e.stack === 'string' ? e.stack : '');
  const stack = `${stackOf(error)}\n${error instanceof Error ? stackOf(error.cause) : ''}`;
  // The TypeScript eraser's errors carry their line already (plugin-module.ts, messageOf).
  if (/\(line \d+/.test(message)) return message;
  for (const file of graph.files) {
    const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const at = new RegExp(`(?:file://)?${escaped}(?:\\?[^:\\s)]*)?:(\\d+)`).exec(stack);
    if (at) return `${message} (${file}:${at[1]})`;
  }
  // Node's SyntaxError of an ES module has no place in its stack: parse the JavaScript files to find it.
  const cause = error instanceof Error && error.cause instanceof SyntaxError ? error.cause : error instanceof SyntaxError ? error : undefined;
  if (cause !== undefined) {
    for (const file of graph.files) {
      const place = syntaxErrorPlace(file);
      if (place !== undefined) return `${message} (${place})`;
    }
  }
  return message;
}

/** `file:line:column` of the first syntax error in a JavaScript file, if acorn finds one. */
function syntaxErrorPlace(file: string): string | undefined {
  if (!/\.[cm]?js$/.test(file)) return undefined;
  let source: string;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    parse(source, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true, allowAwaitOutsideFunction: true });
    return undefined;
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    return loc === undefined ? undefined : `${file}:${loc.line}:${loc.column + 1}`;
  }
}

/** One line per change, for a terminal or an editor's message. */
export function describeReload(report: ReloadReport): string[] {
  return report.changes.map((change) =>
    change.status === 'reloaded' ? `reloaded plugin "${change.plugin}" from ${change.file}` : `${change.error?.code ?? 'CONFIG'}: ${change.error?.message ?? 'not reloaded'}`,
  );
}
