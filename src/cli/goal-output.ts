// What `ptc run --goal` prints (docs/goals.md): progress lines per goal event, and the outcome as
// text or as the `--json` summary. Exit 0 only when the goal was met.

import type { GoalRunResult } from '../agent/goal.js';
import type { CommandOutput } from './commands.js';

export { goalProgressLine } from '../agent/goal-progress.js';


export function goalOutput(result: GoalRunResult, writer: { sessionId: string; file: string }, json: boolean): CommandOutput {
  const exitCode = result.outcome === 'met' ? 0 : 1;
  const why =
    result.outcome === 'met'
      ? ''
      : result.outcome === 'aborted'
        ? `ptc: aborted in goal round ${result.rounds}; ptc run --continue goes on from there.\n`
        : `ptc: goal abandoned (${result.reason ?? 'error'}): ${result.message ?? ''}\n`;
  const goal = {
    outcome: result.outcome,
    rounds: result.rounds,
    ...(result.reason !== undefined ? { reason: result.reason, message: result.message } : {}),
    ...(result.evidence !== undefined ? { evidence: result.evidence } : {}),
  };
  if (json) {
    const summary = { sessionId: writer.sessionId, sessionFile: writer.file, text: result.last?.text ?? '', steps: result.last?.steps ?? 0, usage: result.usage, goal };
    return { stdout: `${JSON.stringify(summary, null, 2)}\n`, stderr: why, exitCode };
  }
  const text = result.last?.text ?? '';
  const tail = text.endsWith('\n') || text === '' ? '' : '\n';
  const met = result.outcome === 'met' ? `ptc: goal met in round ${result.rounds}.\n` : '';
  return { stdout: tail, stderr: `${met}${why}session ${writer.sessionId} (${writer.file})\n`, exitCode };
}
