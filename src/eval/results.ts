// results.jsonl: one line per task and preset, appended as each run ends, so an interrupted run
// keeps what it finished and `--resume` skips it. docs/eval.md, "Results".

import fs from 'node:fs';
import path from 'node:path';
import type { Presentation } from './m3tooleval/task-harness.js';

export interface TaskResult {
  readonly task: string;
  readonly domain: string;
  readonly preset: Presentation;
  readonly success: boolean;
  /** The text after "Answer:" in the final message (empty when the run ended without one). */
  readonly answer: string;
  /** Python's str() of the expected value. */
  readonly expected: string;
  /** Model requests made (the loop's steps). */
  readonly turns: number;
  /** How the agent loop ended: completed, max-steps, error, aborted. */
  readonly reason: string;
  /** As the provider reported them (in replay: counted with o200k_base by the replay model). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  /** Tool calls the model made (run_code counts once). */
  readonly toolCalls: number;
  /** Tool calls made from programs (ptc). */
  readonly subCalls: number;
  /** o200k_base tokens of the tool results that entered the model's context, each counted once. */
  readonly toolResultTokens: number;
  readonly wallMs: number;
  readonly sessionFile: string;
  readonly error?: string;
  /** Queue mode: the BullMQ job id (the idempotency key: one line per job) and the worker (`host:pid`) that ran it. */
  readonly jobId?: string;
  readonly worker?: string;
}

export const RESULTS_FILE = 'results.jsonl';

export function resultKey(r: { task: string; preset: string }): string {
  return `${r.preset} ${r.task}`;
}

/** The results in `dir` (an unreadable or torn last line is skipped). */
export function readResults(dir: string): TaskResult[] {
  const file = path.join(dir, RESULTS_FILE);
  if (!fs.existsSync(file)) return [];
  const out: TaskResult[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as TaskResult);
    } catch {
      // a line torn by a crash mid-write: that task runs again on resume
    }
  }
  return out;
}

export function appendResult(dir: string, result: TaskResult): void {
  const file = path.join(dir, RESULTS_FILE);
  // After a crash mid-line the file ends torn: start on a fresh line so the new result stays whole.
  const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
  let torn = false;
  if (size > 0) {
    const fd = fs.openSync(file, 'r');
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    fs.closeSync(fd);
    torn = last[0] !== 0x0a;
  }
  fs.appendFileSync(file, `${torn ? '\n' : ''}${JSON.stringify(result)}\n`);
}
