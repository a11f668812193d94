// The creator preset's `plugin_try` tool: loads a plugin file the way a preset row is loaded, into a
// disposable child scope of the harness, reports what it registered or why it failed, and disposes
// it so nothing stays registered (docs/creator.md).

import path from 'node:path';
import { z } from 'zod';
import type { Context } from '../context/context.js';
import { ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { createPathResolver } from '../builtin-tools/path-resolver.js';
import { defineTool } from '../tools/types.js';
import type { ToolSchema } from '../tools/types.js';
import { assembleRows } from './assemble.js';
import { rootOf } from './creator-inspect.js';
import type { HarnessSettings } from './harness-settings.js';
import { firstLine, PLUGIN_MODULE_EXTENSIONS } from './plugin-module.js';

export interface PluginTryToolOptions {
  /** The context of the row that registered the tool: tries load as disposable plugins under it. */
  readonly ctx: Context;
  readonly settings: HarnessSettings;
}

export const PLUGIN_TRY_DESCRIPTION =
  `Try a plugin file (${PLUGIN_MODULE_EXTENSIONS.join(', ')}; TypeScript is stripped) without keeping it: it is loaded ` +
  'exactly as a preset row would load it, into a throwaway scope of this harness, then unloaded. Returns ' +
  'the tools it registered (name, description, arguments) and services it provided, or why it could not ' +
  'load (the same message a preset row would get). The file must be inside the workspace policy. The ' +
  'plugin runs on the host with the user\'s rights, like a config file. Node keeps a loaded file in ' +
  'memory: to try an edited plugin again in this session, save it under a new file name.';

const pluginTryInput = z.strictObject({
  path: z.string().min(1).describe('The plugin file, relative to the workspace or absolute.'),
  config: z.unknown().optional().describe("The row's config, as it would appear in a preset (checked by the plugin's own schema)."),
});

const toolBrief = z.object({
  name: z.string(),
  description: z.string().describe('Its first line.'),
  arguments: z.array(z.string()).describe('Top-level argument names; a trailing ? marks an optional one.'),
});

const pluginTryOutput = z.object({
  ok: z.boolean().describe('True when the plugin loaded and became active.'),
  file: z.string(),
  plugin: z.string().optional().describe("The plugin's own name (its `name` export)."),
  tools: z.array(toolBrief).describe('Tools it registered while loaded.'),
  services: z.array(z.string()).describe('Services it provided while loaded.'),
  error: z.object({ code: z.string(), message: z.string() }).optional().describe('Why it could not load.'),
  remaining: z.array(z.string()).describe('Tools still registered after unloading; empty unless a plugin misbehaves.'),
});

export type PluginTryResult = z.output<typeof pluginTryOutput>;

export function createPluginTryTool(options: PluginTryToolOptions) {
  const resolver = createPathResolver({ policy: options.settings.policy });
  return defineTool({
    name: 'plugin_try',
    description: PLUGIN_TRY_DESCRIPTION,
    input: pluginTryInput,
    output: pluginTryOutput,
    async execute(args) {
      // The policy decides which files may run here (PERMISSION_DENIED outside it); the real path of
      // what was opened is what gets imported.
      const opened = resolver.resolve(args.path, 'read');
      let file: string;
      try {
        if (!opened.stat) throw new ToolFailedError(`${opened.display} does not exist; give the path of a plugin file.`);
        if (!opened.stat.isFile()) throw new ToolFailedError(`${opened.display} is not a file; give the path of a plugin file.`);
        file = opened.real;
      } finally {
        opened.close();
      }
      return tryPlugin(options, file, args.config);
    },
    renderContent: renderTry,
  });
}

/** Loads `file` as a row into a throwaway scope under `options.ctx`, describes it and disposes it. */
export async function tryPlugin(options: PluginTryToolOptions, file: string, config: unknown): Promise<PluginTryResult> {
  const root = rootOf(options.ctx);
  let scope: Context | undefined;
  const holder = options.ctx.plugin({ name: 'plugin-try', apply: (child) => void (scope = child) });
  if (!scope) throw new ToolFailedError('plugin_try could not open a scope for the plugin.');
  const toolsBefore = new Set(root.tools.schemas(scope).map((t) => t.name));
  const servicesBefore = new Set(root.inspect().services.map((s) => s.name));
  const row = { index: 1, name: file, ...(config !== undefined ? { config } : {}), at: 'plugin_try', baseDir: path.dirname(file) };
  let result: Omit<PluginTryResult, 'remaining'>;
  try {
    const [loaded] = await assembleRows(scope, [row], { workspace: options.settings.cwd });
    const added = root.tools.schemas(scope).filter((t) => !toolsBefore.has(t.name));
    result = {
      ok: true,
      file,
      plugin: loaded!.plugin,
      tools: added.map(briefOf),
      services: root.inspect().services.map((s) => s.name).filter((name) => !servicesBefore.has(name)),
    };
  } catch (error) {
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'TOOL_FAILED';
    result = { ok: false, file, tools: [], services: [], error: { code, message: firstLineOrRows(error) } };
  } finally {
    await holder.dispose();
  }
  const remaining = result.tools.map((t) => t.name).filter((name) => root.tools.get(name, root) !== undefined);
  return { ...result, remaining };
}

function briefOf(tool: ToolSchema): z.output<typeof toolBrief> {
  const schema = tool.inputSchema as Exclude<JsonSchema, boolean>;
  const properties = typeof schema === 'object' && schema.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties) : [];
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return {
    name: tool.name,
    description: tool.description.split('\n')[0] ?? '',
    arguments: properties.map((name) => (required.has(name) ? name : `${name}?`)),
  };
}

/** A config error lists one problem per line; keep them, and only them. */
function firstLineOrRows(error: unknown): string {
  const message = error instanceof Error ? error.message : firstLine(error);
  return message.split('\n').filter((line) => line.trim() !== '' && !/^\s+at /.test(line)).join('\n') || firstLine(error);
}

function renderTry(value: PluginTryResult): string {
  if (!value.ok) return `The plugin in ${value.file} did not load (${value.error?.code}): ${value.error?.message}\nNothing was kept.`;
  const lines = [`Plugin "${value.plugin}" from ${value.file} loaded and was unloaded again.`];
  if (value.tools.length === 0) lines.push('It registered no tools.');
  for (const tool of value.tools) lines.push(`- tool ${tool.name}(${tool.arguments.join(', ')}): ${tool.description}`);
  if (value.services.length > 0) lines.push(`Services it provided: ${value.services.join(', ')}.`);
  if (value.remaining.length > 0) lines.push(`Still registered after unloading: ${value.remaining.join(', ')}.`);
  return lines.join('\n');
}
