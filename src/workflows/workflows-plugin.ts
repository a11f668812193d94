// The `workflows` row (docs/workflows.md): reads the workflows of the user's folder and of a trusted
// workspace's `.ptc/workflows` when the row loads, and once the whole preset is assembled registers
// each whose program names only tools the session has as `workflow_<name>`; a broken one is a CONFIG
// warning with file:line on stderr and is not registered, the others are. Also registers
// `workflow_save`. Programs run in runtimes of their own, made on first use and closed with the row.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Plugin } from '../context/context.js';
import { loggerOf } from '../context/logger.js';
import type { HarnessSettings } from '../harness-settings.js';
import '../harness-settings.js';
import { ptcTransportConfig } from '../ptc/transport-config.js';
import { processRuntimeOptions } from '../ptc/process-runtime-row.js';
import type { PtcLanguage, PtcRuntime } from '../ptc-runtime/types.js';
import { vetSchemas } from '../tools/vetted-schemas.js';
import { userWorkflowsDir, workflowLayers, WORKSPACE_WORKFLOWS_DIR } from './workflow-dirs.js';
import { formatProblem } from './workflow-file.js';
import { createWorkflowSaveTool } from './workflow-save.js';
import type { WorkflowSet } from './workflow-set.js';
import type { RuntimeFor } from './workflow-tool.js';

const workflowsRowConfig = z
  .strictObject({
    /** Register `workflow_save` (default true). */
    save: z.boolean().optional(),
  })
  .default({});

export type WorkflowsRowConfig = z.infer<typeof workflowsRowConfig>;

/** What the row found, for `ptc workflows list` and front-ends. */
export interface WorkflowsService {
  /** The workflows registered and the files left out; before assembly ends, the reference check has not run. */
  report(): WorkflowSet;
  /** Whether the workspace's folder was read (it is trusted). */
  readonly workspaceRead: boolean;
}

declare module '../context/context.js' {
  interface Services {
    workflows: WorkflowsService;
  }
}

export const workflowsPlugin: Plugin<WorkflowsRowConfig> = {
  name: 'workflows',
  inject: ['tools', 'harness'],
  config: workflowsRowConfig,
  async apply(ctx, config) {
    const settings = ctx.harness;
    const env = settings.env ?? process.env;
    // Trust is asked only when there is a workspace folder to decide about (the check hashes files).
    const hasFolder = fs.existsSync(path.join(settings.cwd, WORKSPACE_WORKFLOWS_DIR));
    const trusted = hasFolder && (settings.trustWorkspace === true || settings.workspaceTrusted?.() === true);
    if (hasFolder && !trusted) {
      const { trustCommand } = await import('../trust-command.js');
      loggerOf(ctx).log(
        'note',
        `the workflows of workspace ${settings.cwd} (${WORKSPACE_WORKFLOWS_DIR}) are not loaded: it is not trusted (or changed since). Review and trust it with \`${trustCommand(settings.cwd)}\`.`,
      );
    }
    if (config.save !== false) ctx.tools.register(vetSchemas(createWorkflowSaveTool(settings)));
    // With no workflow folder (the common case) nothing else loads: no checker, no runtime.
    if (!hasFolder && !fs.existsSync(userWorkflowsDir(env))) {
      const empty: WorkflowSet = { workflows: [], broken: [], layers: workflowLayers({ workspace: settings.cwd, env, trusted }) };
      ctx.provide('workflows', { report: () => empty, workspaceRead: trusted });
      return;
    }
    const [{ checkReferences, loadWorkflowSet }, { createWorkflowTool }] = await Promise.all([import('./workflow-set.js'), import('./workflow-tool.js')]);
    const found = await loadWorkflowSet({ workspace: settings.cwd, env, trusted });
    let report: WorkflowSet = found;

    const runtimes = new Map<PtcLanguage, Promise<PtcRuntime>>();
    const runtimeFor: RuntimeFor = (language) => {
      let runtime = runtimes.get(language);
      if (runtime === undefined) {
        runtime = makeRuntime(language, settings);
        runtimes.set(language, runtime);
      }
      return runtime;
    };
    ctx.effect(() => async () => {
      await Promise.all([...runtimes.values()].map(async (r) => (await r).close().catch(() => {})));
    });
    const transport = ptcTransportConfig(settings);
    const toolOptions = {
      runtimeFor,
      cwd: settings.cwd,
      ...(transport.policy ? { policy: transport.policy } : {}),
      ...(settings.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: settings.maxParallelSubCalls } : {}),
    };
    ctx.provide('workflows', { report: () => report, workspaceRead: trusted });
    ctx.on('harness/assembled', () => {
      report = checkReferences(found, ctx.tools.schemas(ctx).map((t) => t.name));
      for (const broken of report.broken) loggerOf(ctx).log('warn', formatProblem(broken.problem));
      for (const workflow of report.workflows) ctx.tools.register(createWorkflowTool(workflow, toolOptions));
    });
  },
};

/** A runtime of the harness's sandbox mode and deadline, each program in a fresh process (no warm pool). */
async function makeRuntime(language: PtcLanguage, settings: HarnessSettings): Promise<PtcRuntime> {
  const { languagePackOr } = await import('../languages/table.js');
  return languagePackOr(language).createRuntime({ ...processRuntimeOptions(settings, {}), pool: false as const });
}
