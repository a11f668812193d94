import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import { continueSession, startSession } from './continue-session.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-start-session-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('startSession', () => {
  it('holds the turn lock from the log\'s creation until close, so no other process appends meanwhile', () => {
    const writer = startSession({ dir });
    writer.append({ type: 'session/start', sessionId: writer.sessionId, preset: 'ptc', cwd: dir, model: 'm', mode: 'ptc' });
    writer.flush();
    expect(fs.existsSync(`${writer.file}.lock`)).toBe(true);
    // Between turns too (no turn is running): a second writer is refused, naming the holder and the fix.
    let refused: unknown;
    try {
      continueSession(dir, writer.sessionId);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain(`process ${process.pid}`);
    expect((refused as Error).message).toContain('wait for it to finish');
    writer.close();
    expect(fs.existsSync(`${writer.file}.lock`)).toBe(false);
    // Control: closed, the session continues.
    const continued = continueSession(dir, writer.sessionId);
    expect(continued.sessionId).toBe(writer.sessionId);
    continued.writer.close();
  });
});
