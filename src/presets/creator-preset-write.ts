// The creator preset's `preset_write` tool: checks a preset the way loading it would (the file schema,
// then assembly of its shipped rows in a throwaway container with the harness's settings) and only
// then writes it to `<workspace>/.ptc/presets/<name>.yml`, atomically and through the race-safe
// resolver (docs/creator.md, docs/file-tools.md). It runs nothing the preset names: plugin files and
// packages are not imported and MCP servers are not started (docs/security.md, "Approval edges").

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { writeFileAtomicAt } from '../builtin-tools/atomic-write.js';
import { describeFsError } from '../builtin-tools/fs-errors.js';
import { createPathResolver, type PathResolver } from '../builtin-tools/path-resolver.js';
import { CREATE_FLAGS, at, closeQuietly, errnoCode, writeAllFd } from '../builtin-tools/safe-fs.js';
import { createContext, type Context } from '../context/context.js';
import { ConfigError, HarnessError, ToolFailedError } from '../errors.js';
import { MAX_PRESET_FILE_BYTES } from '../limits.js';
import { ToolRuntime } from '../tools/tool-runtime.js';
import { defineTool } from '../tools/types.js';
import { assembledRows, assembleRows, describeRow } from './assemble.js';
import type { HarnessSettings } from '../harness-settings.js';
import { isModulePath, isPackageName, PLUGIN_MODULE_EXTENSIONS } from './plugin-module.js';
import { parsePresetText, type PresetFile, type PresetRow } from './preset-file.js';
import { listPresets } from './resolve-preset.js';
import { rowKindOf, type RowKinds } from '../row-kind.js';

export interface PresetWriteToolOptions {
  readonly settings: HarnessSettings;
  /** The shipped row kinds the harness assembles with (its `rowKinds` service). */
  readonly kinds: RowKinds;
  /** Where `PTC_HOME` is read to say which preset a new one shadows; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Where workspace presets live, relative to the workspace (docs/presets.md, "Resolution"). */
export const WORKSPACE_PRESETS_DIR = path.join('.ptc', 'presets');

export const PRESET_WRITE_DESCRIPTION =
  'Write a preset (an ordered list of plugin rows) to .ptc/presets/<name>.yml in the workspace, after ' +
  'checking it as loading it would: unknown rows, bad configs, shipped rows that fail and rows left ' +
  'waiting for a service are refused with the loader\'s message and nothing is written. Plugin files and ' +
  'packages are not run here (check one with plugin_try) and MCP servers are not started. Rows: ' +
  '`builtin-tools` {tools: [...]}, `node-runtime`, `tool-presentation` {mode: native|ptc} (ptc needs a ' +
  'node-runtime row before it), `creator-tools`, a plugin file path (relative to the preset file, so ' +
  '../../tools/x.ts for <workspace>/tools/x.ts) or a package name. An existing preset of that name is ' +
  'replaced only with overwrite: true. Afterwards `ptc run --preset <name>` uses it.';

const presetWriteInput = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'use letters, digits, - and _ only').describe('The preset name (file .ptc/presets/<name>.yml).'),
  description: z.string().trim().min(1).describe('One line saying what the preset is for.'),
  plugins: z
    .array(z.strictObject({ name: z.string().min(1), config: z.unknown().optional() }))
    .min(1)
    .describe('The rows, in load order.'),
  overwrite: z.boolean().default(false).describe('Replace an existing preset of the same name.'),
});

const presetWriteOutput = z.object({
  name: z.string(),
  file: z.string().describe('The written file, relative to the workspace.'),
  created: z.boolean().describe('False when an existing preset was replaced.'),
  mode: z.enum(['native', 'ptc']).describe('How the preset presents its tools.'),
  tools: z.array(z.string()).describe('The tools it gives an agent, sorted.'),
  shadows: z.array(z.string()).describe('Presets of the same name it now hides (PTC_HOME or shipped), as name:origin.'),
  unchecked: z
    .array(z.string())
    .describe('Rows whose code was not run: plugin files and packages (their tools are not in `tools`) and mcp rows (servers not started).'),
});

export type PresetWriteResult = z.output<typeof presetWriteOutput>;

export function createPresetWriteTool(options: PresetWriteToolOptions) {
  const { settings, kinds } = options;
  const resolver = createPathResolver({ policy: settings.policy });
  return defineTool({
    name: 'preset_write',
    description: PRESET_WRITE_DESCRIPTION,
    input: presetWriteInput,
    output: presetWriteOutput,
    examples: [
      {
        name: 'careful',
        description: 'Read-only tools, presented natively.',
        plugins: [{ name: 'builtin-tools', config: { tools: ['read', 'glob', 'grep'] } }, { name: 'tool-presentation', config: { mode: 'native' } }],
      },
    ],
    async execute(args) {
      const relative = path.join(WORKSPACE_PRESETS_DIR, `${args.name}.yml`);
      const absolute = path.join(settings.cwd, relative);
      const rows = args.plugins.map((row) => (row.config === undefined ? { name: row.name } : { name: row.name, config: row.config }));
      const text = stringify({ description: args.description, plugins: rows });
      if (Buffer.byteLength(text) > MAX_PRESET_FILE_BYTES) {
        throw new ConfigError(`The preset is ${Buffer.byteLength(text)} bytes as YAML, more than ${MAX_PRESET_FILE_BYTES}; a preset is a short list of rows.`);
      }
      // The same parse a load does, positions naming the file it will be.
      const preset = parsePresetText(text, absolute);
      checkPluginPaths(preset, resolver);
      const unchecked = preset.rows.filter((row) => !runsHere(row, kinds));
      for (const row of unchecked) checkWithoutRunning(row, settings.cwd, kinds);
      const assembled = await tryAssemble(preset.rows.filter((row) => runsHere(row, kinds)), unchecked.length > 0, settings, kinds);
      const created = await writePresetFile(resolver, relative, text, args.overwrite);
      const shadows = listPresets({ workspace: settings.cwd, ...(options.env ? { env: options.env } : {}) })
        .filter((p) => p.name === args.name && p.origin !== 'workspace')
        .map((p) => `${p.name}:${p.origin}`);
      return {
        name: args.name,
        file: relative.split(path.sep).join('/'),
        created,
        ...assembled,
        shadows,
        unchecked: unchecked.map((row) => `row ${row.index} \`${row.name}\``),
      };
    },
    renderContent(value) {
      const shadow = value.shadows.length > 0 ? ` It hides ${value.shadows.join(', ')}.` : '';
      const rest =
        value.unchecked.length > 0
          ? ` Not run here, so their tools are not listed: ${value.unchecked.join(', ')} (plugin_try runs a plugin file; the preset loads them all).`
          : '';
      return (
        `${value.created ? 'Wrote' : 'Replaced'} ${value.file}: ${value.tools.length} tools (${value.tools.join(', ')}), ` +
        `presented ${value.mode}.${shadow}${rest} Use it with \`ptc run --preset ${value.name}\`.`
      );
    },
  });
}

/** Plugin files run on the host when the preset loads: they must lie inside the policy like any file a tool reads. */
function checkPluginPaths(preset: PresetFile, resolver: PathResolver): void {
  for (const row of preset.rows) {
    if (!isModulePath(row.name)) continue;
    const opened = resolver.resolve(path.resolve(row.baseDir, row.name), 'read');
    opened.close();
  }
}

/**
 * Whether a row is assembled by the check: shipped rows that start nothing on the host (our own code,
 * which starts nothing outside the process but a runtime's sandboxed children; not `mcp`), and names
 * that are no plugin at all (assembly reports them as unknown).
 */
function runsHere(row: PresetRow, kinds: RowKinds): boolean {
  const kind = rowKindOf(kinds, row.name);
  if (kind) return kind.hostCommands === undefined;
  return !isModulePath(row.name) && !isPackageName(row.name);
}

/** What can be known of a row without running it: a module's extension, a package's presence, a shipped row's config. */
function checkWithoutRunning(row: PresetRow, workspace: string, kinds: RowKinds): void {
  const kind = rowKindOf(kinds, row.name);
  if (kind) {
    const problems = kind.checkConfig?.(row.config);
    if (problems !== undefined) throw new ConfigError(`The preset was not written: ${describeRow(row)}: ${problems}.`);
    return;
  }
  if (isPackageName(row.name) && !isModulePath(row.name)) {
    if (!packageInstalled(row.name, workspace)) {
      throw new ConfigError(
        `The preset was not written: ${describeRow(row)}: unknown plugin: no shipped plugin of that name and no package ${JSON.stringify(row.name)} installed in ${workspace}; ` +
          `use a shipped plugin (${Object.keys(kinds).join(', ')}), a plugin file path or an installed package name.`,
      );
    }
    return;
  }
  if (!isModulePath(row.name)) return;
  const file = path.resolve(row.baseDir, row.name);
  if (!PLUGIN_MODULE_EXTENSIONS.some((ext) => file.endsWith(ext))) {
    throw new ConfigError(`The preset was not written: ${describeRow(row)}: plugin file ${file} must end with ${PLUGIN_MODULE_EXTENSIONS.join(', ')}.`);
  }
}

/** Whether `node_modules/<name>/package.json` exists in the workspace or a directory above it (Node's lookup, without running the package). */
function packageInstalled(name: string, workspace: string): boolean {
  for (let dir = workspace; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'node_modules', name, 'package.json'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * Assembles the rows in a throwaway container with the harness's settings; CONFIG with the loader's
 * message when they do not. A row left waiting for a service is accepted when rows that were not run
 * could provide it (`others`).
 */
async function tryAssemble(rows: readonly PresetRow[], others: boolean, settings: HarnessSettings, kinds: RowKinds): Promise<Pick<PresetWriteResult, 'mode' | 'tools'>> {
  const ctx = createContext();
  try {
    ctx.provide('tools', new ToolRuntime(ctx));
    ctx.provide('harness', settings);
    ctx.provide('rowKinds', kinds);
    try {
      await assembleRows(ctx, rows, { kinds, workspace: settings.cwd });
    } catch (error) {
      if (!(others && onlyWaiting(ctx, rows))) throw error;
    }
    return { mode: ctx.tools.modeFor(ctx), tools: ctx.tools.schemas(ctx).map((t) => t.name) };
  } catch (error) {
    if (error instanceof HarnessError && error.code === 'CONFIG') {
      throw new ConfigError(`The preset was not written: ${error.message}`);
    }
    throw error;
  } finally {
    await ctx.dispose().catch(() => {});
  }
}

/** True when every row loaded and none failed: assembly stopped only because some wait for a service. */
function onlyWaiting(ctx: Context, rows: readonly PresetRow[]): boolean {
  const loaded = assembledRows(ctx);
  return loaded.length === rows.length && loaded.every((entry) => entry.handle.state === 'active' || entry.handle.state === 'pending');
}

/** Writes the file whole or not at all; without `overwrite`, an existing file (even one created meanwhile) is kept. */
async function writePresetFile(resolver: PathResolver, relative: string, text: string, overwrite: boolean): Promise<boolean> {
  // `.ptc` is protected (docs/sandbox.md); preset_write is the tool made to write there, and whether
  // it asks is its own rule (docs/approvals.md), not the file tools' protected-path ask.
  const file = resolver.resolve(relative, 'write', { createParents: true, allowProtected: true });
  try {
    if (file.stat?.isDirectory() === true || file.parentFd === undefined || file.name === undefined) {
      throw new ToolFailedError(`${file.display} is a directory; remove it or choose another preset name.`);
    }
    if (file.stat && !overwrite) throw exists(file.display);
    if (file.stat) {
      await writeFileAtomicAt(file.parentFd, file.name, text, file.stat);
      return false;
    }
    await writeNewFileAt(file.parentFd, file.name, text, file.display);
    return true;
  } catch (error) {
    throw describeFsError(error, file.display, 'write');
  } finally {
    file.close();
  }
}

/**
 * A complete temp file linked to its name: link(2) fails if the name exists, so a file that appeared
 * after the check is never replaced, and readers never see a half-written preset.
 */
async function writeNewFileAt(dirFd: number, name: string, text: string, display: string): Promise<void> {
  const temp = `.${name}.${randomBytes(6).toString('hex')}.tmp`;
  let fd: number | undefined;
  try {
    fd = fs.openSync(at(dirFd, temp), CREATE_FLAGS, 0o666);
    await writeAllFd(fd, Buffer.from(text, 'utf8'));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    try {
      fs.linkSync(at(dirFd, temp), at(dirFd, name));
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') throw exists(display);
      throw error;
    }
  } finally {
    closeQuietly(fd);
    try {
      fs.unlinkSync(at(dirFd, temp));
    } catch {
      // Never created.
    }
  }
}

function exists(display: string): ToolFailedError {
  return new ToolFailedError(`${display} already exists; pass overwrite: true to replace it, or choose another name.`);
}
