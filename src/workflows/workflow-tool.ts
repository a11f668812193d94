// The tool a workflow becomes (docs/workflows.md, "Calling a workflow"): `workflow_<name>`, whose input
// schema is the header's. The registry validates the input against it; the program then runs in a
// fresh sandboxed process of its language with `input` bound and the session's tools (its own
// workflows excepted) as `tools`, each sub-call through the full pipeline with the id
// `<this call>:ptc:<n>` (the same bridge as run_code). Only the program's return value comes back.

import { HarnessError, PermissionDeniedError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { BindingFunction, PolicyWidening, PtcLanguage, PtcRuntime, RunResult } from '../ptc-runtime/types.js';
import { DEFAULT_MAX_PARALLEL_SUB_CALLS } from '../ptc/dispatch-pool.js';
import { Bridge, holdsWorkspaceReadOnly, ProgramFailedError } from '../ptc/run-code.js';
import { createSdkBinding } from '../ptc/sdk-binding.js';
import { withUnknownMemberHint } from '../ptc/unknown-member-hint.js';
import { defineTool, type ToolDefinition, type ToolExecContext } from '../tools/types.js';
import { withInput } from './workflow-check.js';
import { WORKFLOW_TOOL_PREFIX, workflowToolName, type WorkflowFile } from './workflow-file.js';

/** A runtime per language, made when a workflow of that language first runs. */
export type RuntimeFor = (language: PtcLanguage) => Promise<PtcRuntime>;

export interface WorkflowToolOptions {
  readonly runtimeFor: RuntimeFor;
  /** The workspace programs run in. */
  readonly cwd: string;
  /** The harness's widening of the sandbox policy (the same as run_code's). */
  readonly policy?: PolicyWidening;
  readonly maxParallelSubCalls?: number;
}

export function createWorkflowTool(workflow: WorkflowFile, options: WorkflowToolOptions): ToolDefinition<Record<string, JsonValue>, JsonValue> {
  const toolName = workflowToolName(workflow.name);
  const where = `${workflow.language === 'python' ? 'Python' : 'TypeScript'} workflow ${workflow.file}`;
  return defineTool<Record<string, JsonValue>, JsonValue>({
    name: toolName,
    description: `${workflow.description} (Saved workflow: a ${workflow.language === 'python' ? 'Python' : 'TypeScript'} program run with this input; returns its result.)`,
    inputSchema: workflow.input,
    async execute(input, exec) {
      const scope = exec.scope;
      const tools = scope?.get('tools');
      if (!scope || !tools) throw new HarnessError('RUNTIME_UNAVAILABLE', `${toolName} must be executed through the tool registry.`);
      const runtime = await options.runtimeFor(workflow.language);
      const policy = await programPolicy(runtime, options.policy, toolName, input, workflow, exec);
      const bridge = new Bridge(tools, scope, { id: exec.callId, name: toolName }, options.maxParallelSubCalls ?? DEFAULT_MAX_PARALLEL_SUB_CALLS, exec.signal, exec.spill);
      // A workflow's program sees the session's tools but no workflow: no recursion.
      const all = bridge.functions();
      const functions: Record<string, BindingFunction> = Object.create(null) as Record<string, BindingFunction>;
      for (const name of Object.keys(all)) if (!name.startsWith(WORKFLOW_TOOL_PREFIX)) functions[name] = all[name]!;
      const visible = tools.schemas(scope).filter((t) => !t.name.startsWith(WORKFLOW_TOOL_PREFIX));
      let result: RunResult;
      try {
        const spec = await runtime.resolve({
          program: withInput(workflow.source, workflow.language, JSON.stringify(input)),
          bindings: [
            { global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } },
            createSdkBinding(visible, runtime.language),
          ],
          cwd: options.cwd,
          signal: bridge.signal,
          ...(policy ? { policy } : {}),
        });
        result = await runtime.run(spec);
      } finally {
        await bridge.settle();
        for (const entry of bridge.deferredContexts()) exec.deferContext(entry);
      }
      if (result.error) {
        const error = withUnknownMemberHint(result.error, visible.map((t) => t.name), ['describe', 'search']);
        // The program's positions are the file's own lines (the header is comments): name the file.
        const message = error.message.replace(/\bprogram\.(?:ts|py):(?=\d)/g, `${workflow.file}:`);
        throw new ProgramFailedError({ code: error.code, message: `${where} failed: ${message}` }, result.logs);
      }
      return result.value ?? null;
    },
  });
}

/**
 * The same rule as run_code's (docs/approvals.md, "Programs"): under `--approve writes|all` the
 * program runs with the workspace read-only where a sandbox can hold it; where none can, the call
 * asks once, showing the program and its input.
 */
async function programPolicy(
  runtime: PtcRuntime,
  base: PolicyWidening | undefined,
  toolName: string,
  input: Record<string, JsonValue>,
  workflow: WorkflowFile,
  exec: ToolExecContext,
): Promise<PolicyWidening | undefined> {
  const approvals = exec.scope?.get('approvals');
  if (approvals === undefined || approvals.policy === 'never') return base;
  if (await holdsWorkspaceReadOnly(runtime)) return { ...base, readOnlyWorkspace: true };
  const reason = await approvals.confirm(
    {
      id: exec.callId,
      tool: toolName,
      args: { input, file: workflow.file, code: workflow.source },
      why: 'no sandbox here can keep this workflow\'s program from changing the workspace, so it asks before it runs',
      ...(exec.parent ? { parent: { id: exec.parent.id, tool: exec.parent.name } } : {}),
    },
    exec.signal,
  );
  if (reason !== undefined) throw new PermissionDeniedError(`${toolName} did not run: ${reason}.`);
  return base;
}
