// createHarness: one container assembled from a preset's plugin rows (plus extra rows) on top of the
// tool registry and the harness's settings. Everything a CLI command or a library user needs to
// list, render or execute tools. docs/presets.md.

import path from 'node:path';
import { createContext, type Context } from './context/context.js';
import { ConfigError, HarnessError } from './errors.js';
import { assembledRows, assembleRows, type LoadedRow, type PackageBase } from './presets/assemble.js';
import { watchPluginRows, type ReloadReport } from './presets/plugin-reload.js';
import { harnessReloadRule } from './trust/reload-rule.js';
import type { PluginVersions } from './presets/plugin-versions.js';
import type { RowKinds } from './row-kind.js';
import { loadDefaultServices, serviceProviders } from './presets/service-rows.js';
import { SHIPPED_ROWS } from './presets/shipped-rows.js';
import type { HarnessSettings } from './harness-settings.js';
import { nodeRuntimePlugin } from './presets/node-runtime-plugin.js';
import type { PresetFile, PresetRow } from './presets/preset-file.js';
import { DEFAULT_PRESET, type LoadedPreset, type PresetDefinition } from './presets/presets.js';
import { ptcTransportConfig } from './ptc/transport-config.js';
import { ptcPlugin } from './ptc/plugin.js';
import type { PtcRuntime, SandboxMode } from './ptc-runtime/types.js';
import { resolveWorkspacePolicy } from './sandbox/index.js';
import { loadPresetWithTrust, trustOf } from './trust/trusted-preset.js';
import { ToolRuntime } from './tools/tool-runtime.js';
import type { ApprovalRuleSet } from './approvals/approval-rule-set.js';
import { installApprovalRules } from './approvals/approval-rules-plugin.js';
import type { WebSearchConfig } from './builtin-tools/web-search/backend.js';

export { builtinToolsPlugin } from './presets/builtin-tools-plugin.js';

/** A row appended to the preset: a plugin file or package (`--plugin`), or any row name with config. */
export interface ExtraPluginRow {
  readonly name: string;
  readonly config?: unknown;
  /** Base of a relative plugin path; default: the current directory. */
  readonly baseDir?: string;
  /** How messages name the row's origin; default `plugins option`. */
  readonly at?: string;
}

export interface HarnessOptions {
  /** The workspace; default: the current directory. */
  readonly cwd?: string;
  /**
   * A preset name (`.ptc/presets/` of a trusted workspace, `$PTC_HOME/presets/`, shipped), a path
   * to a preset file (relative to the current directory), or a preset read with readPresetFile.
   * Default `ptc`.
   */
  readonly preset?: string | PresetFile;
  /** Rows appended after the preset's (a string is a plugin file path or a package name). */
  readonly plugins?: readonly (string | ExtraPluginRow)[];
  /** Where `PTC_HOME` is read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Sandbox mode of programs and the bash tool (docs/sandbox.md); default `auto`. */
  readonly sandbox?: SandboxMode;
  /** Extra paths programs and tools may read. */
  readonly allowRead?: readonly string[];
  /** Extra paths programs and tools may write (and read). */
  readonly allowWrite?: readonly string[];
  /** Allow network from programs and the bash tool. */
  readonly allowNet?: boolean;
  /**
   * Paths kept read-only for programs and the bash tool, which the file tools write only when a person
   * approves that exact call, besides every `.git` and `.ptc` (docs/sandbox.md, "Protected paths").
   */
  readonly protect?: readonly string[];
  /** Default program deadline in ms (wall time, including awaited tool calls). */
  readonly timeoutMs?: number;
  /** Overlap bound of concurrency-safe sub-calls in a program (default 10; 1 = serial). */
  readonly maxParallelSubCalls?: number;
  /** The code runtime a `node-runtime` row provides instead of creating one (the caller closes it). */
  readonly runtime?: PtcRuntime;
  /** The warm pool of a Node runtime a row creates (HarnessSettings.runtimePool); `{ size: 1, refill: false }` for one program. */
  readonly runtimePool?: HarnessSettings['runtimePool'];
  /**
   * Trust the workspace's own configuration (`.ptc/presets`, the plugins and packages they name)
   * without asking the trust store (docs/presets.md, "Trust"). Default: only a workspace recorded
   * by `ptc trust` with unchanged files is trusted.
   */
  readonly trustWorkspace?: boolean;
  /** Where the one-line note about an ignored workspace preset goes; default stderr. */
  readonly onNote?: (line: string) => void;
  /**
   * Saved approval rules (docs/config.md, "Approval rules"): deny rules block matching calls under
   * every policy, allow rules spare the ordinary ask of installed approvals. Shared with subagents.
   */
  readonly approvalRules?: ApprovalRuleSet;
  /** The backend of the `web_search` tool (the config file's `webSearch`, docs/web-tools.md); without it the tool explains how to set one. */
  readonly webSearch?: WebSearchConfig;
  /**
   * Note the plugin files' digests at assembly, so `reloadPlugins()` between turns reloads the ones
   * that changed (`--watch`, the config file's `watchPlugins`; docs/plugin-reload.md). Default false.
   */
  readonly watchPlugins?: boolean;
  /**
   * With `watchPlugins`, the plugin-file versions a front-end keeps across the harnesses it builds per
   * turn (`ptc ui`): each harness imports the version it should run (docs/plugin-reload.md, "ptc ui").
   */
  readonly pluginVersions?: PluginVersions;
  /**
   * The row kinds rows are assembled with (default SHIPPED_ROWS). The agent layer hands its table,
   * the shipped rows plus the real `loop` row (src/agent/agent-rows.ts): assembly does not import
   * the layers above it (docs/architecture.md, "Layers").
   */
  readonly rowKinds?: RowKinds;
}

export interface Harness {
  /** The root context — the agent's scope: load more plugins with `harness.ctx.plugin(...)`. */
  readonly ctx: Context;
  readonly tools: ToolRuntime;
  readonly cwd: string;
  /** The preset as assembled: name, description, presentation mode, tools, rows. */
  readonly preset: PresetDefinition;
  /** The code runtime (`ptcRuntime`), when a row provides one. */
  readonly runtime: PtcRuntime | undefined;
  /**
   * A child scope that presents the harness's tools through run_code, whatever the preset's
   * presentation: adds a Node runtime and the transport when the preset has none (`ptc exec`).
   */
  ptcScope(): Promise<Context>;
  /**
   * Reloads the plugin-file rows whose file (or a local module it imports) changed since assembly or
   * the last call: the old version's scope is disposed and the new one applied; one that fails to load
   * keeps the old version and is reported (docs/plugin-reload.md). Call it between turns. Without
   * `watchPlugins`, the first call only notes the files' digests.
   */
  reloadPlugins(): Promise<ReloadReport>;
  /** Disposes every row (closing a runtime a row created). */
  dispose(): Promise<void>;
}

/** Assembles a harness; a preset that cannot assemble rejects with CONFIG naming the row. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const trustOptions = {
    ...(options.trustWorkspace !== undefined ? { trustWorkspace: options.trustWorkspace } : {}),
    ...(options.onNote !== undefined ? { onNote: options.onNote } : {}),
  };
  // A preset object is the caller's own (as a path is); one read by loadPresetWithTrust keeps its origin.
  const trusted =
    typeof options.preset === 'object'
      ? { preset: { origin: 'path' as const, ...options.preset }, workspaceTrusted: trustOf({ workspace: cwd, env }, trustOptions).trusted }
      : loadPresetWithTrust(options.preset ?? DEFAULT_PRESET, { workspace: cwd, env }, trustOptions);
  const preset: LoadedPreset = trusted.preset;
  // THE policy (docs/sandbox.md): resolved once here, the same object for every consumer.
  const policy = resolveWorkspacePolicy({
    cwd,
    ...(options.allowRead === undefined ? {} : { allowRead: options.allowRead }),
    ...(options.allowWrite === undefined ? {} : { allowWrite: options.allowWrite }),
    network: options.allowNet ?? false,
    ...(options.protect === undefined ? {} : { protect: options.protect }),
  });
  const settings: HarnessSettings = {
    cwd: policy.cwd,
    policy,
    sandbox: options.sandbox ?? 'auto',
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: options.maxParallelSubCalls } : {}),
    ...(options.runtime !== undefined ? { runtime: options.runtime } : {}),
    ...(options.runtimePool !== undefined ? { runtimePool: options.runtimePool } : {}),
    ...(options.trustWorkspace === true ? { trustWorkspace: true as const } : {}),
    ...(options.approvalRules !== undefined ? { approvalRules: options.approvalRules } : {}),
    ...(options.webSearch !== undefined ? { webSearch: options.webSearch } : {}),
    workspaceTrusted: trusted.workspaceTrusted,
    env,
  };
  const rows = [...preset.rows, ...extraRows(options.plugins ?? [], preset.rows.length)];

  const reloadRule = harnessReloadRule({
    policy,
    env,
    workspaceRows: preset.origin === 'workspace' ? preset.rows.length : 0,
    trustWorkspace: options.trustWorkspace === true,
  });
  const ctx = createContext();
  // Digests before the rows load, so an edit made while they load is seen by the first check.
  const kinds = options.rowKinds ?? SHIPPED_ROWS;
  let reloader = options.watchPlugins === true ? watchPluginRows(ctx, rows, kinds, reloadRule) : undefined;
  ctx.provide('tools', new ToolRuntime(ctx));
  ctx.provide('harness', settings);
  ctx.provide('rowKinds', kinds);
  if (options.approvalRules !== undefined) installApprovalRules(ctx, options.approvalRules, policy.cwd);
  let loaded: LoadedRow[];
  try {
    const versions = options.watchPlugins === true ? options.pluginVersions : undefined;
    loaded = await assembleRows(ctx, rows, {
      kinds,
      workspace: policy.cwd,
      packageBase: packageBaseOf(preset, policy.cwd, trusted.workspaceTrusted),
      ...(versions !== undefined ? { loadFile: (row: PresetRow) => versions.load(row, reloadRule) } : {}),
      // The model client, session store, logger and loop a preset names no row for (src/presets/service-rows.ts).
      afterRows: () => loadDefaultServices(ctx, kinds, rows.length),
    });
  } catch (error) {
    await ctx.dispose().catch(() => {});
    throw error;
  }
  ctx.emit('harness/assembled');

  const definition: PresetDefinition = {
    name: preset.name,
    description: preset.description,
    origin: preset.origin,
    file: preset.file,
    mode: ctx.tools.modeFor(ctx),
    tools: ctx.tools.schemas(ctx).map((s) => s.name),
    rows: loaded.map(({ row, plugin }) => ({
      index: row.index,
      name: row.name,
      plugin,
      // A reloaded plugin file has a new handle (docs/plugin-reload.md).
      get state() {
        return (assembledRows(ctx).find((entry) => entry.row.index === row.index)?.handle ?? loaded.find((entry) => entry.row === row)!.handle).state;
      },
      at: row.at,
      ...(row.config !== undefined ? { config: row.config } : {}),
    })),
    get services() {
      return serviceProviders(ctx, assembledRows(ctx));
    },
  };

  let programScope: Promise<Context> | undefined;
  return {
    ctx,
    tools: ctx.tools,
    cwd,
    preset: definition,
    get runtime() {
      return ctx.get('ptcRuntime');
    },
    ptcScope() {
      programScope ??= openPtcScope(ctx, settings);
      return programScope;
    },
    async reloadPlugins() {
      if (reloader === undefined) {
        reloader = watchPluginRows(ctx, rows, kinds, reloadRule);
        return { changes: [] };
      }
      return reloader.reload();
    },
    dispose: () => ctx.dispose(),
  };
}

/**
 * Where a package row resolves from (docs/presets.md, "Trust"): the workspace for rows the caller
 * typed (`--plugin`, a preset path or object) and for a trusted workspace; else the directory of the
 * `$PTC_HOME` or shipped preset that names it, and never from inside the untrusted workspace.
 */
function packageBaseOf(preset: LoadedPreset, workspace: string, workspaceTrusted: () => boolean): (row: PresetRow) => PackageBase {
  return (row) => {
    // The preset's own rows come first; the rest were appended by the caller.
    const fromPreset = row.index <= preset.rows.length;
    if (!fromPreset || preset.origin === 'path' || preset.origin === 'workspace' || workspaceTrusted()) return { from: workspace };
    return { from: path.dirname(preset.file), untrustedWorkspace: workspace };
  };
}

function extraRows(inputs: readonly (string | ExtraPluginRow)[], after: number): PresetRow[] {
  return inputs.map((input, i) => {
    const row = typeof input === 'string' ? { name: input } : input;
    return {
      index: after + i + 1,
      name: row.name,
      ...(row.config !== undefined ? { config: row.config } : {}),
      at: row.at ?? 'plugins option',
      baseDir: path.resolve(row.baseDir ?? process.cwd()),
    };
  });
}

async function openPtcScope(ctx: Context, settings: HarnessSettings): Promise<Context> {
  if (!ctx.get('ptcRuntime')) {
    const runtime = ctx.plugin(nodeRuntimePlugin, {});
    if ((await runtime.settled()) !== 'active') {
      throw new ConfigError(`Cannot start a Node runtime for programs: ${errorText(runtime.error)}`);
    }
  }
  let scope: Context | undefined;
  const handle = ctx.plugin({
    name: 'ptc-scope',
    inject: ['tools', 'ptcRuntime'],
    apply(child) {
      child.tools.presentAs('ptc');
      if (!hasTransport(child)) child.plugin(ptcPlugin, ptcTransportConfig(settings));
      scope = child;
    },
  });
  if ((await handle.settled()) !== 'active' || !scope) {
    throw new ConfigError(`Cannot open a ptc scope over the preset's tools: ${errorText(handle.error)}`);
  }
  return scope;
}

/** Whether a run_code transport is installed (a ptc scope's wire tools need one). */
function hasTransport(scope: Context): boolean {
  try {
    scope.tools.wireTools(scope);
    return true;
  } catch (error) {
    if (error instanceof HarnessError && error.code === 'RUNTIME_UNAVAILABLE') return false;
    throw error;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
