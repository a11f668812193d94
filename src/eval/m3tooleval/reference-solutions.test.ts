// The reference solutions solve all 82 tasks through the real tools (called through the registry
// here, without a model; the replay tests and bench/m3tooleval.ts run them through the agent loop),
// and none of them contains its task's expected answer.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnswer } from './check-answer.js';
import { pyStr } from './py-value.js';
import { referenceProgram } from './reference-solutions.js';
import { createTaskHarness } from './task-harness.js';
import { loadTasks } from './tasks.js';

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<unknown>;
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-m3-ref-'));
afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

describe('reference solutions', () => {
  for (const task of loadTasks()) {
    it(task.name, async () => {
      const program = referenceProgram(task);
      const expected = pyStr(task.expected);
      // Inputs appear in programs; answers must come from the tools. Short answers (3, 'A') are
      // everywhere in code, and some answers are given in the instruction ('Invalid DNA sequence',
      // 'True' or 'False', an input sequence): only the others are checked for.
      if (expected.length >= 5 && !task.instruction.includes(expected)) expect(program).not.toContain(expected);
      const harness = await createTaskHarness(task, 'standard', { cwd: workspace, sandbox: 'off' });
      try {
        let calls = 0;
        const tools = new Proxy({}, {
          get: (_t, name) => async (args: unknown) => {
            calls++;
            const result = await harness.tools.execute(String(name), args ?? {}, { scope: harness.ctx });
            if (result.isError) throw new Error(result.content);
            return result.value;
          },
        });
        const answer = String(await new AsyncFunction('tools', program)(tools));
        expect(calls).toBeGreaterThan(0);
        expect(checkAnswer(answer, task.expected), `answer ${answer} vs ${expected}`).toBe(true);
      } finally {
        await harness.dispose();
      }
    });
  }
});
