import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ConfigError } from '../errors.js';
import type { SessionEvent, SessionEventInput } from './events.js';
import { findSession, parseSessionLog, readSession } from './reader.js';
import { SESSION_EVENT_TYPES } from './schema.js';
import { createSessionWriter } from './writer.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-reader-'));
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** One event of every type, as the loop would append them in a ptc session. */
const EVERY_TYPE: SessionEventInput[] = [
  { type: 'session/start', sessionId: 's', preset: 'ptc', cwd: '/w', model: 'deepseek:deepseek-chat', mode: 'ptc', pid: 123, host: 'box' },
  { type: 'user/message', text: 'Sum the sizes.\nThen stop.' },
  { type: 'llm/request', step: 1, tools: ['run_code'], system: 'You are…', toolSchemas: [{ name: 'run_code', parameters: { type: 'object' } }] },
  {
    type: 'llm/response',
    step: 1,
    text: '',
    toolCalls: [{ id: 'c1', name: 'run_code', args: { code: 'return 1', description: 'one' } }],
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    finishReason: 'tool-calls',
  },
  { type: 'tool/call', id: 'c1', name: 'run_code', args: { code: 'return 1', description: 'one' } },
  { type: 'tool/ptc-dispatch-start', parentId: 'c1', id: 'c1:ptc:1', tool: 'read', args: { path: 'a' } },
  { type: 'tool/ptc-dispatch', parentId: 'c1', id: 'c1:ptc:1', tool: 'read', args: { path: 'a' }, content: 'A', isError: false },
  { type: 'tool/result', id: 'c1', name: 'run_code', content: 'TIMEOUT', isError: true, error: { code: 'TIMEOUT', message: 'slow' } },
  { type: 'tool/approval', stage: 'request', id: 'c1:ptc:2', tool: 'write', parentId: 'c1', args: { path: 'b', content: 'x' } },
  { type: 'tool/approval', stage: 'answer', id: 'c1:ptc:2', tool: 'write', parentId: 'c1', decision: 'deny', by: 'person', reason: 'denied by the user: no' },
  { type: 'context/deferred', step: 1, source: 'lint', text: 'a.ts: 1 warning' },
  { type: 'goal/set', objective: 'green tests', check: 'npm test', budget: { maxRounds: 3, maxTokens: 100, maxTimeMs: 1000 } },
  { type: 'goal/round', round: 1, left: { rounds: 3, tokens: 100, timeMs: 1000 }, resumed: true },
  { type: 'goal/check', round: 1, command: 'npm test', exitCode: null, passed: false, output: 'killed' },
  { type: 'goal/met', round: 1, evidence: 'tests pass' },
  { type: 'goal/abandoned', round: 1, reason: 'max-time', message: 'out of time' },
  { type: 'plan/mode', active: true, by: 'flag' },
  { type: 'plan/review', id: 'c9', decision: 'approved', steps: ['Read the code', 'Fix the bug'] },
  { type: 'plan/review', id: 'c8', decision: 'sent-back', comment: 'keep the API' },
  {
    type: 'context/compaction',
    step: 2,
    trigger: 'auto',
    pruned: [{ id: 'c1', stub: '[read result pruned]' }],
    summary: 'Summary',
    keepFromStep: 1,
    tokensBefore: 900,
    tokensAfter: 300,
    usage: { inputTokens: 800, outputTokens: 20 },
  },
  { type: 'context/compaction-failed', step: 2, trigger: 'manual', message: 'the model returned an empty summary' },
  { type: 'llm/error', step: 2, message: 'Service Unavailable', status: 503 },
  { type: 'session/resume', preset: 'ptc', model: 'deepseek-chat', mode: 'ptc', pid: 4242, host: 'h' },
  { type: 'session/end', reason: 'error', steps: 2, error: 'Service Unavailable' },
];

function writeLog(name: string, events: SessionEventInput[]): { file: string; written: SessionEvent[] } {
  const writer = createSessionWriter({ dir, sessionId: name });
  const written = events.map((e) => writer.append(e));
  writer.close();
  return { file: writer.file, written };
}

describe('readSession', () => {
  it('round-trips one event of every type', () => {
    expect(new Set(EVERY_TYPE.map((e) => e.type))).toEqual(SESSION_EVENT_TYPES);
    const { file, written } = writeLog('all', EVERY_TYPE);
    expect(readSession(file)).toEqual({ events: written, warnings: [] });
  });

  it('skips a torn last line with a warning and keeps every event before it', () => {
    const { file, written } = writeLog('torn', EVERY_TYPE.slice(0, 5));
    const torn = '{"type":"tool/result","ts":"2026-11-29T14:15:30.000Z","id":"c1","content":"par';
    fs.appendFileSync(file, torn);
    const { events, warnings } = readSession(file);
    expect(events).toEqual(written);
    expect(warnings).toEqual([`line 6: skipped a torn last line (${Buffer.byteLength(torn)} bytes)`]);
  });

  it('keeps a complete last line that only lacks its LF, with a warning', () => {
    const { file, written } = writeLog('nolf', EVERY_TYPE.slice(0, 2));
    fs.truncateSync(file, fs.statSync(file).size - 1);
    const { events, warnings } = readSession(file);
    expect(events).toEqual(written);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^line 2: the last line has no trailing LF; kept it/);
  });

  it('skips a corrupt middle line, naming its number, and reads on', () => {
    const lines = EVERY_TYPE.slice(0, 4).map((e, i) => JSON.stringify({ ...e, ts: `2026-11-29T14:15:3${i}.000Z` }));
    lines.splice(2, 0, '{"type":"user/message","ts":"x","te');
    const { events, warnings } = parseSessionLog(lines.join('\n') + '\n');
    expect(events.map((e) => e.type)).toEqual(['session/start', 'user/message', 'llm/request', 'llm/response']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^line 3: skipped: invalid JSON/);
  });

  it('skips lines of the wrong shape or an unknown type, saying why', () => {
    const text = [
      '{"type":"user/message","ts":"t","text":"ok"}',
      '{"type":"tool/result","ts":"t","id":"c1","name":"read","content":42,"isError":false}',
      '{"type":"agent/thought","ts":"t","text":"from the future"}',
      '[1,2]',
      '{"ts":"t"}',
      '',
      '{"type":"user/message","ts":"t","text":"still read","extra":{"kept":true}}',
    ].join('\n');
    const { events, warnings } = parseSessionLog(text + '\n');
    expect(events).toEqual([
      { type: 'user/message', ts: 't', text: 'ok' },
      { type: 'user/message', ts: 't', text: 'still read', extra: { kept: true } },
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^line 2: skipped: not a valid tool\/result event: \/content: /),
      'line 3: skipped: unknown event type "agent/thought" (written by a newer ptc?)',
      'line 4: skipped: not a JSON object',
      'line 5: skipped: no "type" string',
      'line 6: skipped a blank line',
    ]);
  });

  it('splits on LF only: CR and U+2028 stay inside strings', () => {
    const { file, written } = writeLog('seps', [{ type: 'user/message', text: 'a\r\nb\u2028c\u2029d' }]);
    expect(readSession(file)).toEqual({ events: written, warnings: [] });
  });

  it('reads an empty file as no events and no warnings', () => {
    const file = path.join(dir, 'empty.jsonl');
    fs.writeFileSync(file, '');
    expect(readSession(file)).toEqual({ events: [], warnings: [] });
  });

  it('reports a missing file as a configuration error', () => {
    expect(() => readSession(path.join(dir, 'nope.jsonl'))).toThrow(ConfigError);
  });
});

describe('findSession', () => {
  beforeEach(() => {
    for (const id of ['20261129-141530-aaaaaa', '20261129-141530-aabbbb', '20261130-090000-cccccc']) {
      fs.writeFileSync(path.join(dir, `${id}.jsonl`), '');
    }
  });

  const codeOf = (f: () => unknown): unknown => {
    try {
      f();
    } catch (error) {
      return error instanceof ConfigError ? error.code : error;
    }
    return undefined;
  };

  it('finds an id, a unique prefix, the id with its extension, or a path', () => {
    expect(findSession(dir, '20261129-141530-aaaaaa')).toBe(path.join(dir, '20261129-141530-aaaaaa.jsonl'));
    expect(findSession(dir, '20261130')).toBe(path.join(dir, '20261130-090000-cccccc.jsonl'));
    expect(findSession(dir, '20261129-141530-aab.jsonl')).toBe(path.join(dir, '20261129-141530-aabbbb.jsonl'));
    expect(findSession('/elsewhere', path.join(dir, '20261130-090000-cccccc.jsonl'))).toBe(path.join(dir, '20261130-090000-cccccc.jsonl'));
  });

  it('refuses unknown, ambiguous and empty ids with CONFIG, pointing at `ptc sessions list`', () => {
    expect(codeOf(() => findSession(dir, '2025'))).toBe('CONFIG');
    expect(() => findSession(dir, '2025')).toThrow(/ptc sessions list/);
    expect(codeOf(() => findSession(dir, '20261129'))).toBe('CONFIG');
    expect(() => findSession(dir, '20261129')).toThrow(/20261129-141530-aaaaaa, 20261129-141530-aabbbb/);
    expect(codeOf(() => findSession(dir, ''))).toBe('CONFIG');
    expect(codeOf(() => findSession(path.join(dir, 'missing'), 'x'))).toBe('CONFIG');
    expect(codeOf(() => findSession(dir, './no/such.jsonl'))).toBe('CONFIG');
  });
});
