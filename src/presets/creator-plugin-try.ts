// The creator preset's `plugin_try` tool: loads a plugin file the way a preset row is loaded, into a
// disposable child scope of the harness, reports what it registered or why it failed, and disposes
// it so nothing stays registered (docs/creator.md).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Context } from '../context/context.js';
import { PermissionDeniedError, ToolFailedError } from '../errors.js';
import { MAX_PLUGIN_TRY_SHOWN_BYTES } from '../limits.js';
import type { JsonSchema, JsonValue } from '../json.js';
import { createPathResolver } from '../builtin-tools/path-resolver.js';
import { defineTool } from '../tools/types.js';
import type { ToolExecContext, ToolSchema } from '../tools/types.js';
import { assembleRows } from './assemble.js';
import { rootOf } from './creator-inspect.js';
import type { HarnessSettings } from '../harness-settings.js';
import { pluginGraph } from './plugin-graph.js';
import { firstLine, loadPluginFile, PLUGIN_MODULE_EXTENSIONS } from './plugin-module.js';

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
  'plugin runs on the host with the user\'s rights, like a config file, so every try asks the user first ' +
  '(showing the file) and is refused where no one can be asked. Trying the same file again after an edit ' +
  'loads the edited version (and the edited files it imports).';

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
    async execute(args, exec) {
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
      const shown = await confirmTry(file, args, exec);
      // What runs must be what the person saw: a program that swaps the file after the yes is refused.
      if (digestOf(readPlugin(file)) !== shown) throw new PermissionDeniedError(`${file} changed after it was approved; it was not loaded. Call plugin_try again to be asked about the new content.`);
      return tryPlugin(options, file, args.config);
    },
    renderContent: renderTry,
  });
}

/**
 * Asks a person to approve importing `file` on the host, showing its text (bounded), every time: an
 * "allow for the session" does not cover it, `--approve never` and a run no one watches refuse it
 * (docs/creator.md, "plugin_try asks"). The same path as a protected write (src/builtin-tools/protected-write.ts).
 * Resolves with the digest of the content shown.
 */
async function confirmTry(file: string, args: { path: string; config?: unknown }, exec: ToolExecContext): Promise<string> {
  const approvals = exec.scope?.get('approvals');
  const what = `plugin_try imports ${file} on the host, outside the sandbox, with the user's rights, so a person approves each try`;
  if (approvals === undefined || approvals.policy === 'never') {
    const why = approvals === undefined ? 'no one can be asked here (ptc run, ptc exec, a library call without approvals)' : 'approvals are off (--approve never)';
    throw new PermissionDeniedError(
      `${what}, and ${why}, so it is refused. Review the file and load it yourself (\`ptc tools --plugin ${file}\`), ` +
        'or try it in ptc chat, ptc ui or ptc acp with --approve writes (or all) and approve that call.',
    );
  }
  const content = readPlugin(file);
  const text = content.subarray(0, MAX_PLUGIN_TRY_SHOWN_BYTES).toString('utf8');
  const cut = content.length > MAX_PLUGIN_TRY_SHOWN_BYTES ? `\n[... ${content.length - MAX_PLUGIN_TRY_SHOWN_BYTES} more bytes not shown: review the file before allowing]` : '';
  const reason = await approvals.confirm(
    {
      id: exec.callId,
      tool: 'plugin_try',
      args: { path: file, ...(args.config !== undefined ? { config: args.config as JsonValue } : {}), content: text + cut },
      why: `${what}; it may import other files beside it`,
      ...(exec.parent ? { parent: { id: exec.parent.id, tool: exec.parent.name } } : {}),
    },
    exec.signal,
    { always: true },
  );
  if (reason !== undefined) throw new PermissionDeniedError(`plugin_try of ${file} refused: ${reason}.`);
  return digestOf(content);
}

function readPlugin(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new ToolFailedError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function digestOf(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
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
    // Versioned by content: trying the file again after an edit imports the new version (docs/plugin-reload.md).
    const version = pluginGraph(file).digest;
    const [loaded] = await assembleRows(scope, [row], {
      kinds: options.ctx.rowKinds,
      workspace: options.settings.cwd,
      loadFile: (r) => loadPluginFile(r.name, r.baseDir, version),
    });
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
