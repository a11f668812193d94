// One logged turn of the agent on the `standard` preset against a scripted model server: the tests
// of subagents (approvals, trust, task presets) all start with "the parent delegates".

import { runAgent } from '../../src/agent/loop.js';
import type { Context } from '../../src/context/context.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter } from '../../src/session/index.js';

export interface DelegateTurn {
  /** The harness scope the agent runs in. */
  readonly scope: Context;
  readonly cwd: string;
  /** The scripted server's base URL. */
  readonly baseUrl: string;
  readonly sessionDir: string;
}

/** Runs the turn "Delegate." and returns the agent's result with the parent's session file. */
export async function delegateTurn(turn: DelegateTurn): Promise<{ result: Awaited<ReturnType<typeof runAgent>>; sessionId: string; file: string }> {
  const writer = createSessionWriter({ dir: turn.sessionDir });
  try {
    const result = await runAgent({
      scope: turn.scope,
      cwd: turn.cwd,
      preset: 'standard',
      model: resolveModel({ baseUrl: turn.baseUrl, model: 'scripted', env: {} }),
      task: 'Delegate.',
      sink: writer,
      sessionId: writer.sessionId,
      sessionDir: turn.sessionDir,
      retry: { maxRetries: 0 },
    });
    return { result, sessionId: writer.sessionId, file: writer.file };
  } finally {
    writer.close();
  }
}
