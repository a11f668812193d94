// The creator preset's `harness_inspect` tool: what the running harness is made of — its preset rows
// and their states, the other plugins loaded into the container, the services, the tools each scope
// sees and how they are presented, the code runtime and the settings (docs/creator.md).

import { z } from 'zod';
import type { Context, PluginHandle } from '../context/context.js';
import { defineTool } from '../tools/types.js';
import { assembledRows } from './assemble.js';
import type { HarnessSettings } from '../harness-settings.js';
import { firstLine } from './plugin-module.js';
import { serviceProviders } from './service-rows.js';

export interface HarnessInspectToolOptions {
  /** The context of the row that registered the tool: the harness's root is found above it. */
  readonly ctx: Context;
  readonly settings: HarnessSettings;
}

export const HARNESS_INSPECT_DESCRIPTION =
  'Describe the running harness: the preset rows with their state (active; pending with the services ' +
  'it waits for; failed with the reason), other plugins loaded into it, the services (the model client llm, ' +
  'sessions, logger, loop, ptcRuntime, ...) and the row that provides each, each scope\'s visible tools and presentation (native: the tools are sent as functions; ptc: ' +
  'only run_code is sent and the tools are an SDK inside programs), the code runtime (language, ' +
  'isolation, sandbox mode, timeout bounds) and the workspace policy. Read-only.';

const stateFields = {
  state: z.enum(['pending', 'active', 'failed', 'disposed']),
  waitsFor: z.array(z.string()).optional().describe('Services a pending plugin waits for.'),
  error: z.string().optional().describe('Why a failed plugin failed.'),
};

const inspectOutput = z.object({
  preset: z.array(
    z.object({
      index: z.number().describe('1-based row number.'),
      name: z.string().describe('The row name as written (shipped row, path or package).'),
      plugin: z.string().describe("The plugin's own name."),
      at: z.string().describe('file:line of the row, or where an extra row came from.'),
      ...stateFields,
    }),
  ),
  plugins: z
    .array(z.object({ name: z.string(), loadedBy: z.string().describe('The plugin (or root) that loaded it.'), ...stateFields }))
    .describe('Plugins in the container that are not preset rows: loaded by a row, or later by the program using the harness.'),
  services: z
    .array(
      z.object({
        name: z.string(),
        provider: z.string().describe("The providing plugin's own name (root: the harness itself)."),
        row: z
          .object({ index: z.number(), name: z.string(), default: z.boolean().describe('Loaded because no row of the preset provides the service.') })
          .optional()
          .describe('The preset row that provides it; absent for the harness\'s own services and plugins loaded outside the rows.'),
      }),
    )
    .describe('Every service (tools, harness, llm, sessions, logger, loop, ptcRuntime, approvals, ...) and who provides it.'),
  scopes: z
    .array(
      z.object({
        scope: z.string().describe('root (the agent), or the plugin whose context declares its own presentation or tools.'),
        mode: z.enum(['native', 'ptc']),
        tools: z.array(z.string()).describe('Visible tools, sorted.'),
        wire: z.array(z.string()).nullable().describe('The tools sent to the model; null when they cannot be built.'),
        wireError: z.string().optional(),
        current: z.boolean().describe('True for the scope this call runs in.'),
      }),
    )
    .describe('The root scope, the calling scope, and every plugin context whose mode or tools differ from its parent.'),
  runtime: z
    .object({
      language: z.string(),
      isolation: z.string(),
      sandboxMode: z.string(),
      timeout: z.object({ defaultMs: z.number(), minMs: z.number(), maxMs: z.number() }),
    })
    .nullable()
    .describe('The ptcRuntime service, when a row provides one.'),
  settings: z.object({
    cwd: z.string(),
    sandbox: z.string(),
    read: z.array(z.string()),
    write: z.array(z.string()),
    network: z.boolean(),
  }),
});

export type HarnessInspection = z.output<typeof inspectOutput>;

export function createHarnessInspectTool(options: HarnessInspectToolOptions) {
  return defineTool({
    name: 'harness_inspect',
    description: HARNESS_INSPECT_DESCRIPTION,
    input: z.strictObject({}),
    output: inspectOutput,
    isConcurrencySafe: true,
    execute: (_args, exec) => inspectHarness(options, exec.scope),
  });
}

/** The inspection of the harness around `options.ctx`, seen from `current` (default: the root). */
export function inspectHarness(options: HarnessInspectToolOptions, current?: Context): HarnessInspection {
  const root = rootOf(options.ctx);
  const tools = root.tools;
  const snapshot = root.inspect();
  const rows = assembledRows(root);
  const rowHandles = new Set<PluginHandle>(rows.map((r) => r.handle));

  const scopeOf = (ctx: Context, label: string) => {
    let wire: string[] | null = null;
    let wireError: string | undefined;
    try {
      wire = tools.wireTools(ctx).map((t) => t.name);
    } catch (error) {
      wireError = firstLine(error);
    }
    return {
      scope: label,
      mode: tools.modeFor(ctx),
      tools: tools.schemas(ctx).map((t) => t.name),
      wire,
      ...(wireError !== undefined ? { wireError } : {}),
      current: ctx === (current ?? root),
    };
  };
  const scopes = [scopeOf(root, 'root')];
  const seen = new Set<Context>([root]);
  for (const { handle, loadedBy, context } of snapshot.plugins) {
    if (!context || seen.has(context)) continue;
    const own = scopeOf(context, handle.name);
    const parent = scopeOf(loadedBy, loadedBy.name);
    // Only contexts that change what the model sees are scopes worth listing (and the caller's own).
    if (context === current || own.mode !== parent.mode || own.tools.join('\n') !== parent.tools.join('\n')) {
      scopes.push(own);
      seen.add(context);
    }
  }
  if (current && !seen.has(current)) scopes.push(scopeOf(current, current.name));

  const runtime = root.get('ptcRuntime');
  const { policy } = options.settings;
  return {
    preset: rows.map(({ row, plugin, handle }) => ({ index: row.index, name: row.name, plugin, at: row.at, ...stateOf(handle) })),
    plugins: snapshot.plugins
      .filter(({ handle }) => !rowHandles.has(handle))
      .map(({ handle, loadedBy }) => ({ name: handle.name, loadedBy: loadedBy.name, ...stateOf(handle) })),
    services: serviceProviders(root, rows).map((s) => ({ name: s.name, provider: s.provider, ...(s.row !== undefined ? { row: { ...s.row } } : {}) })),
    scopes,
    runtime: runtime
      ? {
          language: runtime.language,
          isolation: runtime.isolation,
          sandboxMode: runtime.sandboxMode,
          timeout: { defaultMs: runtime.timeout.defaultMs, minMs: runtime.timeout.minMs, maxMs: runtime.timeout.maxMs },
        }
      : null,
    settings: {
      cwd: options.settings.cwd,
      sandbox: options.settings.sandbox,
      read: [...policy.read],
      write: [...policy.write],
      network: policy.network,
    },
  };
}

function stateOf(handle: PluginHandle) {
  const state = handle.state;
  return {
    state,
    ...(state === 'pending' ? { waitsFor: handle.missing() } : {}),
    ...(state === 'failed' ? { error: firstLine(handle.error) } : {}),
  };
}

/** The container's root context: the agent's scope of a harness. */
export function rootOf(ctx: Context): Context {
  let at = ctx;
  while (at.parent) at = at.parent;
  return at;
}
