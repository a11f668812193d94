// The agent against the real DeepSeek API in PTC mode. Runs only when DEEPSEEK_API_KEY is set;
// skipped otherwise (CI has no key and no network).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/loop.js';
import { createHarness } from '../../src/harness.js';
import { resolveModel } from '../../src/llm/index.js';
import { createSessionWriter, readSession } from '../../src/session/index.js';

describe.skipIf(!process.env.DEEPSEEK_API_KEY)('DeepSeek live, ptc preset', () => {
  it('composes tools in one program and answers from its result', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-live-'));
    const sessions = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-live-log-'));
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'the first word is alpha\n');
    fs.writeFileSync(path.join(workspace, 'b.txt'), 'the second word is omega\n');
    const harness = await createHarness({ cwd: workspace, preset: 'ptc' });
    const writer = createSessionWriter({ dir: sessions });
    try {
      const result = await runAgent({
        scope: harness.ctx,
        cwd: workspace,
        preset: 'ptc',
        model: resolveModel({ model: 'deepseek:deepseek-chat' }),
        task: 'Read a.txt and b.txt in one run_code program and tell me the two words.',
        sink: writer,
        sessionId: writer.sessionId,
        maxSteps: 6,
      });
      writer.close();
      const { events } = readSession(writer.file);
      expect(result.reason).toBe('completed');
      expect(events.some((e) => e.type === 'tool/call' && e.name === 'run_code')).toBe(true);
      expect(events.filter((e) => e.type === 'tool/ptc-dispatch').length).toBeGreaterThanOrEqual(2);
      expect(result.text.toLowerCase()).toContain('alpha');
      expect(result.text.toLowerCase()).toContain('omega');
    } finally {
      await harness.dispose();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(sessions, { recursive: true, force: true });
    }
  }, 180_000);
});
