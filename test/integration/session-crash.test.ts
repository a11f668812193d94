// A real child process appends to a session log and is SIGKILLed mid-run: every line whose `append`
// had returned before the kill must be readable afterwards.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { afterEach, beforeEach, expect, it } from 'vitest';

import { listSessions } from '../../src/session/list.js';
import { readSession } from '../../src/session/reader.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const register = pathToFileURL(path.join(root, 'scripts/ts-register.mjs')).href;
const childScript = path.join(root, 'test/fixtures/session-crash-child.mjs');
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-crash-'));
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  /** The highest line number the child reported as appended. */
  readonly reported: number;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Runs the child until it has reported `killAfter` appended lines, then SIGKILLs it. */
function runAndKill(sessionId: string, contentChars: number, killAfter: number): Promise<Outcome> {
  const child = spawn(
    process.execPath,
    ['--import', register, childScript, dir, sessionId, String(contentChars)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let reported = 0;
  let pending = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) reported = Math.max(reported, Number(line));
    if (reported >= killAfter && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    // 'close': the exit and the end of stdout, so every report the child made has been counted.
    child.on('close', (_code, signal) => resolve({ reported, signal, stderr }));
  });
}

it.each([
  ['small lines', 200, 300],
  ['256 KiB lines', 256 * 1024, 40],
])('keeps every appended line when the process is SIGKILLed mid-run (%s)', async (_label, contentChars, killAfter) => {
  const { reported, signal, stderr } = await runAndKill('crashed', contentChars, killAfter);
  expect(signal, stderr).toBe('SIGKILL');
  expect(reported).toBeGreaterThanOrEqual(killAfter);

  const { events, warnings } = readSession(path.join(dir, 'crashed.jsonl'));
  expect(events[0]).toMatchObject({ type: 'session/start', sessionId: 'crashed' });
  const results = events.slice(1);
  expect(results.length).toBeGreaterThanOrEqual(reported);
  results.forEach((event, i) => {
    expect(event).toMatchObject({ type: 'tool/result', id: `call_${i + 1}` });
    if (event.type === 'tool/result') expect(event.content).toHaveLength(contentChars);
  });
  // At most the line being written when the kill landed is lost.
  for (const warning of warnings) expect(warning).toMatch(/skipped a torn last line/);
  expect(warnings.length).toBeLessThanOrEqual(1);

  const [summary] = listSessions(dir);
  expect(summary).toMatchObject({ id: 'crashed', outcome: 'crashed' });
});
