// The `tool-presentation` row: a `presentAs` declaration on the scope the row is loaded into (the
// agent's scope), so two agents in one process can differ (docs/ptc-mode.md). In ptc mode it also
// installs the run_code transport, so it waits for `ptcRuntime` — without a runtime row it stays
// pending and assembly reports it.

import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { Context, Plugin } from '../context/context.js';
import { ptcPlugin } from '../ptc/plugin.js';
import { ptcTransportConfig } from '../ptc/transport-config.js';
import type { PresentationMode } from '../tools/tool-runtime.js';

const presentationConfig = z.strictObject({ mode: z.enum(['native', 'ptc']) });

export type ToolPresentationConfig = z.infer<typeof presentationConfig>;

const NAME = 'tool-presentation';

function declare(ctx: Context, mode: PresentationMode): void {
  const scope = ctx.parent;
  if (!scope) throw new ConfigError(`${NAME} must be loaded as a plugin (ctx.plugin), not applied to a root context.`);
  const undo = scope.tools.presentAs(mode);
  ctx.effect(() => undo);
}

const nativePresentation: Plugin<ToolPresentationConfig> = {
  name: NAME,
  inject: ['tools'],
  config: presentationConfig,
  apply: (ctx) => declare(ctx, 'native'),
};

const ptcPresentation: Plugin<ToolPresentationConfig> = {
  name: NAME,
  inject: ['tools', 'harness', 'ptcRuntime'],
  config: presentationConfig,
  apply(ctx) {
    declare(ctx, 'ptc');
    // A runtime the transport cannot serve (a language without an SDK renderer) fails this row.
    const transport = ctx.plugin(ptcPlugin, ptcTransportConfig(ctx.harness));
    if (transport.state === 'failed') throw transport.error;
  },
};


/**
 * The plugin for a row's config: what it injects depends on the mode. An invalid config is
 * returned as the native variant, whose schema then reports it when the row loads.
 */
export function toolPresentationPlugin(config: unknown): Plugin<ToolPresentationConfig> {
  const parsed = presentationConfig.safeParse(config);
  return parsed.success && parsed.data.mode === 'ptc' ? ptcPresentation : nativePresentation;
}
