// The `loop` service (docs/architecture.md, "Services"): what runs one turn of a session. The default
// row (`loop`, src/agent/agent-rows.ts) runs `runAgent` (src/agent/loop.ts); a plugin may provide a
// loop of its own, or wrap the default (`import { runAgent } from 'ptc-harness'`) to observe or
// bound each turn. The default loads loop.ts at its first run, so assembling a preset stays light.

import type { Context, Plugin } from '../context/context.js';
import type { AgentRunOptions, AgentRunResult } from './loop.js';

export interface AgentLoop {
  /** Runs one turn: the task as the next user message, model and tools until a final answer, a bound, an error or an abort. */
  run(options: AgentRunOptions): Promise<AgentRunResult>;
}

export const defaultLoop: AgentLoop = {
  async run(options) {
    const { runAgent } = await import('./loop.js');
    return runAgent(options);
  },
};

/** The container's loop; the default when no row provides one (a harness assembled without the agent's rows). */
export function loopOf(ctx: Context): AgentLoop {
  return ctx.get('loop') ?? defaultLoop;
}

export const loopPlugin: Plugin = {
  name: 'loop',
  apply(ctx) {
    ctx.provide('loop', defaultLoop);
  },
};

declare module '../context/context.js' {
  interface Services {
    loop: AgentLoop;
  }
}
