import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { SessionEventInput } from './events.js';
import { formatSessionList, listSessions, type ListSessionsOptions } from './list.js';
import { createSessionWriter } from './writer.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-list-'));
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function start(id: string, extra: Partial<Extract<SessionEventInput, { type: 'session/start' }>> = {}): SessionEventInput {
  return { type: 'session/start', sessionId: id, preset: 'ptc', cwd: '/w', model: 'deepseek:deepseek-chat', mode: 'ptc', ...extra };
}

function step(n: number): SessionEventInput[] {
  return [
    { type: 'llm/request', step: n, tools: ['run_code'], system: 's' },
    { type: 'llm/response', step: n, text: 't', toolCalls: [], usage: {} },
  ];
}

/** Writes a session whose events are stamped one second apart from `at`. */
function session(id: string, at: string, events: SessionEventInput[]): string {
  let t = Date.parse(at);
  const writer = createSessionWriter({ dir, sessionId: id, now: () => new Date((t += 1000) - 1000) });
  for (const e of events) writer.append(e);
  writer.close();
  return writer.file;
}

// Process 4242 on host "box" is alive; 666 is not.
const liveness: ListSessionsOptions = { hostname: 'box', isProcessAlive: (pid) => pid === 4242 };

describe('listSessions', () => {
  beforeEach(() => {
    session('done', '2026-11-29T10:00:00Z', [start('done'), { type: 'user/message', text: 'q' }, ...step(1), ...step(2), { type: 'session/end', reason: 'completed', steps: 2 }]);
    session('stopped', '2026-11-29T12:00:00Z', [start('stopped', { preset: 'standard', model: 'openai:gpt-4.1', mode: 'native' }), ...step(1), { type: 'session/end', reason: 'aborted', steps: 1 }]);
    session('died', '2026-11-29T11:00:00Z', [start('died', { pid: 666, host: 'box' }), ...step(1), ...step(2), ...step(3)]);
    session('live', '2026-11-29T13:00:00Z', [start('live', { pid: 4242, host: 'box' }), ...step(1)]);
    session('elsewhere', '2026-11-29T07:00:00Z', [start('elsewhere', { pid: 4242, host: 'other-box' })]);
    const torn = session('torn', '2026-11-29T09:00:00Z', [start('torn'), ...step(1)]);
    fs.appendFileSync(torn, '{"type":"llm/req');
    session('quiet', '2026-11-29T08:00:00Z', [start('quiet'), { type: 'user/message', text: 'q' }]);
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'README.txt'), 'not a log');
  });

  it('summarises complete, aborted, running, crashed, torn and empty logs, newest first', () => {
    const summaries = listSessions(dir, liveness);
    expect(summaries.map((s) => [s.id, s.startedAt, s.preset, s.model, s.steps, s.outcome, s.warnings.length])).toEqual([
      ['live', '2026-11-29T13:00:00.000Z', 'ptc', 'deepseek:deepseek-chat', 1, 'running', 0],
      ['stopped', '2026-11-29T12:00:00.000Z', 'standard', 'openai:gpt-4.1', 1, 'aborted', 0],
      ['died', '2026-11-29T11:00:00.000Z', 'ptc', 'deepseek:deepseek-chat', 3, 'crashed', 0],
      ['done', '2026-11-29T10:00:00.000Z', 'ptc', 'deepseek:deepseek-chat', 2, 'completed', 0],
      ['torn', '2026-11-29T09:00:00.000Z', 'ptc', 'deepseek:deepseek-chat', 1, 'crashed', 1],
      ['quiet', '2026-11-29T08:00:00.000Z', 'ptc', 'deepseek:deepseek-chat', 0, 'incomplete', 0],
      ['elsewhere', '2026-11-29T07:00:00.000Z', 'ptc', 'deepseek:deepseek-chat', 0, 'incomplete', 0],
      ['empty', undefined, undefined, undefined, 0, 'incomplete', 0],
    ]);
    expect(summaries[0]!.file).toBe(path.join(dir, 'live.jsonl'));
  });

  it('formats an aligned table with a footnote for logs with warnings', () => {
    expect(formatSessionList(listSessions(dir, liveness))).toBe(
      [
        'ID         STARTED               PRESET    MODEL                   STEPS  OUTCOME',
        'live       2026-11-29 13:00:00Z  ptc       deepseek:deepseek-chat      1  running',
        'stopped    2026-11-29 12:00:00Z  standard  openai:gpt-4.1              1  aborted',
        'died       2026-11-29 11:00:00Z  ptc       deepseek:deepseek-chat      3  crashed',
        'done       2026-11-29 10:00:00Z  ptc       deepseek:deepseek-chat      2  completed',
        'torn       2026-11-29 09:00:00Z  ptc       deepseek:deepseek-chat      1  crashed*',
        'quiet      2026-11-29 08:00:00Z  ptc       deepseek:deepseek-chat      0  incomplete',
        'elsewhere  2026-11-29 07:00:00Z  ptc       deepseek:deepseek-chat      0  incomplete',
        'empty      -                     -         -                           0  incomplete',
        '',
        '* the log has skipped or torn lines; `ptc sessions show <id>` lists them.',
        '',
      ].join('\n'),
    );
  });

  it('finds no sessions in a missing directory', () => {
    expect(listSessions(path.join(dir, 'missing'))).toEqual([]);
    expect(formatSessionList([])).toBe('No sessions.\n');
  });

  it('checks liveness against the real process table by default', () => {
    const file = session('me', '2026-11-29T14:00:00Z', [start('me', { pid: process.pid, host: os.hostname() })]);
    const me = listSessions(dir).find((s) => s.file === file);
    expect(me?.outcome).toBe('running');
  });
});
