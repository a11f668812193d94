// The ptc plugin: once a code runtime (`ctx.ptcRuntime`) and the registry exist, installs the
// run_code transport in the runtime's flavour: its language picks the SDK renderer and the words of
// run_code's description (an unsupported language fails assembly), and an in-memory runtime gets each
// program's conversation as its memory key. Which scopes present tools through it is the registry's
// mode (config or presentAs).

import { z } from 'zod';
import { isSdkLanguage } from '../codegen/index.js';
import type { Context, Plugin } from '../context/context.js';
import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import type { ProgramExecution, PtcLanguage, PtcRuntime } from '../ptc-runtime/types.js';
import type { ToolExecContext } from '../tools/types.js';
import { vetSchemas } from '../tools/vetted-schemas.js';
import { createRunCodeTool, RUN_CODE_DESCRIPTION, type RunCodeToolOptions } from './run-code.js';

const ptcConfig = z.object({
  /** The workspace programs run in (absolute). */
  cwd: z.string().min(1),
  maxParallelSubCalls: z.number().int().min(1).max(1000).optional(),
  policy: z
    .object({
      allowRead: z.array(z.string()).optional(),
      allowWrite: z.array(z.string()).optional(),
      network: z.boolean().optional(),
      protect: z.array(z.string()).optional(),
    })
    .optional(),
});

export type PtcPluginConfig = z.infer<typeof ptcConfig>;

export const ptcPlugin: Plugin<PtcPluginConfig> = {
  name: 'ptc',
  inject: ['tools', 'ptcRuntime'],
  config: ptcConfig,
  apply(ctx, config) {
    const runtime = ctx.ptcRuntime;
    const language: unknown = runtime.language;
    if (!isSdkLanguage(language)) {
      throw new ConfigError(
        `the loaded code runtime's language ${JSON.stringify(language)} has no SDK renderer; use a runtime whose language is "typescript" (node-runtime) or "python" (python-runtime).`,
      );
    }
    const options = (rt: PtcRuntime): RunCodeToolOptions => ({
      runtime: rt,
      cwd: config.cwd,
      ...(config.maxParallelSubCalls !== undefined ? { maxParallelSubCalls: config.maxParallelSubCalls } : {}),
      ...(config.policy ? { policy: config.policy } : {}),
    });
    const tool = createRunCodeTool(options(runtime));
    const execution = runtime.execution ?? 'stateless';
    const flavoured =
      language === 'typescript' && execution === 'stateless'
        ? tool
        : { ...tool, description: runCodeDescription(language, execution), inputSchema: withCodeDescription(tool.inputSchema, language) };
    // run_code's schema in every flavour is checked by src/builtin-tools/catalog-schemas.test.ts.
    if (execution !== 'in-memory') {
      ctx.tools.provideTransport(vetSchemas(flavoured));
      return;
    }
    // Each call runs on a view of the runtime that names its conversation: the agent run when there
    // is one (a new one per session), else the scope (one `ptc exec`, one MCP server).
    ctx.tools.provideTransport(
      vetSchemas({
        ...flavoured,
        execute: (args, exec: ToolExecContext) => createRunCodeTool(options(withMemoryKey(runtime, memoryKeyOf(exec)))).execute(args, exec),
      }),
    );
    // The session's end ends its memory: the agent service is withdrawn when its run finishes.
    ctx.plugin({
      name: 'ptc-memory-session',
      inject: ['agent'],
      apply(session: Context) {
        const agent = session.get('agent');
        if (agent !== undefined) session.effect(() => () => void runtime.forget?.(agent));
      },
    });
  },
};

function memoryKeyOf(exec: ToolExecContext): object {
  return exec.scope?.get('agent') ?? exec.scope ?? exec;
}

function withMemoryKey(runtime: PtcRuntime, memoryKey: object): PtcRuntime {
  return {
    language: runtime.language,
    isolation: runtime.isolation,
    sandboxMode: runtime.sandboxMode,
    timeout: runtime.timeout,
    ...(runtime.execution === undefined ? {} : { execution: runtime.execution }),
    resolve: (request) => runtime.resolve({ ...request, memoryKey }),
    run: (spec) => runtime.run(spec),
    close: () => runtime.close(),
  };
}

/** run_code's description in the runtime's language; the TypeScript stateless one is RUN_CODE_DESCRIPTION itself. */
export function runCodeDescription(language: PtcLanguage, execution: ProgramExecution = 'stateless'): string {
  const state =
    execution === 'in-memory'
      ? 'top-level names persist from one run to the next in this conversation until the memory is reset.'
      : 'each run starts with fresh state.';
  if (language === 'python') {
    return (
      'Run a Python program that calls the tools of this session. Arguments: `code` (required) — the BODY of an ' +
      'async Python function, using `await tools.<name>({...})` as declared in the SDK of the system prompt; ' +
      '`description` (required) — a short label of what the program does. Only what the program returns or prints ' +
      `comes back to you; ${state}`
    );
  }
  return execution === 'stateless' ? RUN_CODE_DESCRIPTION : RUN_CODE_DESCRIPTION.replace('each run starts with fresh state.', state);
}

/** run_code's input schema in the runtime's language (exported for the test that vets it). */
export function withCodeDescription(schema: JsonSchema, language: PtcLanguage): JsonSchema {
  if (language !== 'python' || typeof schema !== 'object' || schema === null) return schema;
  const properties = (schema as { properties?: Record<string, JsonSchema> }).properties ?? {};
  return {
    ...schema,
    properties: { ...properties, code: { type: 'string', description: 'The program: the body of an async Python function.' } },
  };
}
