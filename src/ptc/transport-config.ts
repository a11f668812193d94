// run_code's transport config from the harness settings, for the rows that install it (the
// tool-presentation row, src/presets/tool-presentation-plugin.ts, and the workflows row).

import type { HarnessSettings } from '../harness-settings.js';
import type { PtcPluginConfig } from './plugin.js';

/** The run_code transport's config from the harness settings: the same workspace and policy as every tool. */
export function ptcTransportConfig(settings: HarnessSettings): PtcPluginConfig {
  const { cwd, policy, maxParallelSubCalls } = settings;
  return {
    cwd,
    ...(maxParallelSubCalls !== undefined ? { maxParallelSubCalls } : {}),
    policy: { allowRead: [...policy.read], allowWrite: [...policy.write], network: policy.network, protect: [...(policy.protect ?? [])] },
  };
}
