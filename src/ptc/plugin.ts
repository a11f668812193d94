// The ptc plugin: once a code runtime (`ctx.ptcRuntime`) and the registry exist, installs the
// run_code transport in the runtime's flavour: its language picks the SDK renderer and the words of
// run_code's description (an unsupported language fails assembly), and an in-memory runtime gets each
// program's conversation as its memory key. Which scopes present tools through it is the registry's
// mode (config or presentAs).

import { z } from 'zod';
import type { Context, Plugin } from '../context/context.js';
import { ConfigError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { languagePack, languagePackOr, languagePacks } from '../languages/table.js';
import type { ProgramExecution, PtcLanguage, PtcRuntime } from '../ptc-runtime/types.js';
import type { ToolExecContext } from '../tools/types.js';
import { vetSchemas } from '../tools/vetted-schemas.js';
import { createRunCodeTool, type RunCodeToolOptions } from './run-code.js';

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
    const pack = languagePack(language);
    if (pack === undefined) {
      const known = languagePacks().map((p) => `"${p.id}"${p.runtimeRow === undefined ? '' : ` (${p.runtimeRow})`}`);
      throw new ConfigError(
        `the loaded code runtime's language ${JSON.stringify(language)} has no SDK renderer; use a runtime whose language is ${known.slice(0, -1).join(', ')} or ${known.at(-1) ?? '"typescript"'}.`,
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
    const description = pack.prompt.runCodeDescription(execution);
    const flavoured =
      description === tool.description && pack.prompt.codeArgumentDescription === undefined
        ? tool
        : { ...tool, description, inputSchema: withCodeDescription(tool.inputSchema, pack.id) };
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

/** run_code's description in the runtime's language (its pack's words); the TypeScript stateless one is RUN_CODE_DESCRIPTION itself. */
export function runCodeDescription(language: PtcLanguage, execution: ProgramExecution = 'stateless'): string {
  return languagePackOr(language).prompt.runCodeDescription(execution);
}

/** run_code's input schema in the runtime's language (exported for the test that vets it). */
export function withCodeDescription(schema: JsonSchema, language: PtcLanguage): JsonSchema {
  const code = languagePackOr(language).prompt.codeArgumentDescription;
  if (code === undefined || typeof schema !== 'object' || schema === null) return schema;
  const properties = (schema as { properties?: Record<string, JsonSchema> }).properties ?? {};
  return { ...schema, properties: { ...properties, code: { type: 'string', description: code } } };
}
