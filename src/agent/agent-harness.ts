// createHarness with the agent's row kinds (src/agent/agent-rows.ts): what the front-ends and the
// library's root export build a harness with, so a preset's `loop` row is the real loop.

import { createHarness, type Harness, type HarnessOptions } from '../harness.js';
import { AGENT_ROWS } from './agent-rows.js';

export function createAgentHarness(options: HarnessOptions = {}): Promise<Harness> {
  return createHarness({ ...options, rowKinds: options.rowKinds ?? AGENT_ROWS });
}
