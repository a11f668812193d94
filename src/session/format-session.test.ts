import { describe, expect, it } from 'vitest';

import type { SessionEvent, SessionEventInput } from './events.js';
import { formatSession } from './format-session.js';

/** Stamps events one second apart, as the writer would. */
function stamp(events: SessionEventInput[]): SessionEvent[] {
  return events.map((e, i) => ({ ...e, ts: new Date(Date.UTC(2026, 10, 29, 14, 15, 30 + i)).toISOString() }) as SessionEvent);
}

const code = 'const a = await tools.read({ path: "a.txt" });\nconst b = await tools.read({ path: "b.txt" });\nreturn a.length + b.length;';

const ptcSession = stamp([
  { type: 'session/start', sessionId: '20261129-141530-abcdef', preset: 'ptc', cwd: '/work/demo', model: 'deepseek:deepseek-chat', mode: 'ptc' },
  { type: 'user/message', text: 'How long are a.txt and b.txt together?' },
  { type: 'llm/request', step: 1, tools: ['run_code'], system: 'x'.repeat(1234) },
  {
    type: 'llm/response',
    step: 1,
    text: 'Let me read both.',
    toolCalls: [{ id: 'call_1', name: 'run_code', args: { code, description: 'sum sizes' } }],
    usage: { inputTokens: 900, outputTokens: 40 },
    finishReason: 'tool-calls',
  },
  { type: 'tool/call', id: 'call_1', name: 'run_code', args: { code, description: 'sum sizes' } },
  { type: 'tool/ptc-dispatch-start', parentId: 'call_1', id: 'call_1:ptc:1', tool: 'read', args: { path: 'a.txt' } },
  { type: 'tool/ptc-dispatch-start', parentId: 'call_1', id: 'call_1:ptc:2', tool: 'read', args: { path: 'b.txt' } },
  { type: 'tool/ptc-dispatch', parentId: 'call_1', id: 'call_1:ptc:2', tool: 'read', args: { path: 'b.txt' }, content: 'bb', isError: false },
  { type: 'tool/ptc-dispatch', parentId: 'call_1', id: 'call_1:ptc:1', tool: 'read', args: { path: 'a.txt' }, content: 'line one\nline two', isError: false },
  { type: 'tool/result', id: 'call_1', name: 'run_code', content: '19', isError: false },
  { type: 'context/deferred', step: 1, source: 'workspace', text: 'a.txt changed on disk' },
  { type: 'llm/request', step: 2, tools: ['run_code'], system: 'x'.repeat(1234) },
  { type: 'llm/response', step: 2, text: 'Together they are 19 characters long.', toolCalls: [], usage: { inputTokens: 1000, outputTokens: 12 } },
  { type: 'session/end', reason: 'completed', steps: 2 },
]);

describe('formatSession', () => {
  it('renders each step with its calls, sub-calls indented under run_code, results and the end', () => {
    expect(formatSession(ptcSession)).toBe(
      [
        'Session 20261129-141530-abcdef',
        '  started  2026-11-29 14:15:30Z',
        '  preset   ptc (ptc mode)',
        '  model    deepseek:deepseek-chat',
        '  cwd      /work/demo',
        '',
        'User:',
        '  How long are a.txt and b.txt together?',
        '',
        'Step 1',
        '  Request: tools run_code; system prompt 1234 chars',
        '  Response (tool-calls) [tokens in 900, out 40]:',
        '    Let me read both.',
        '  Tool call run_code [call_1]',
        '    args: {"description":"sum sizes"}',
        '    code:',
        '      const a = await tools.read({ path: "a.txt" });',
        '      const b = await tools.read({ path: "b.txt" });',
        '      return a.length + b.length;',
        '    Sub-calls (2):',
        '      read [call_1:ptc:1] {"path":"a.txt"} -> ok',
        '        line one',
        '        line two',
        '      read [call_1:ptc:2] {"path":"b.txt"} -> ok',
        '        bb',
        '    Result (ok):',
        '      19',
        '  Deferred context (workspace):',
        '    a.txt changed on disk',
        '',
        'Step 2',
        '  Request: tools run_code; system prompt 1234 chars',
        '  Response [tokens in 1000, out 12]:',
        '    Together they are 19 characters long.',
        '',
        'End: completed after 2 steps',
        '',
      ].join('\n'),
    );
  });

  it('cuts long values for display and marks what never finished', () => {
    const events = stamp([
      { type: 'session/start', sessionId: 's', preset: 'standard', cwd: '/w', model: 'm', mode: 'native' },
      { type: 'llm/request', step: 1, tools: ['read', 'bash'], system: 's' },
      {
        type: 'llm/response',
        step: 1,
        text: '',
        toolCalls: [
          { id: 'r1', name: 'read', args: { path: 'big.txt' } },
          { id: 'b1', name: 'bash', args: { command: 'sleep 100' } },
        ],
        usage: {},
      },
      { type: 'tool/call', id: 'r1', name: 'read', args: { path: 'big.txt' } },
      { type: 'tool/call', id: 'b1', name: 'bash', args: { command: 'sleep 100' } },
      { type: 'tool/result', id: 'r1', name: 'read', content: 'y'.repeat(50), isError: false },
      { type: 'llm/error', step: 1, message: 'boom', status: 500 },
    ]);
    const text = formatSession(events, { maxChars: 30, warnings: ['line 8: skipped a torn last line (12 bytes)'] });
    expect(text).toContain(['  Tool call read [r1]', '    args: {"path":"big.txt"}', '    Result (ok):', `      ${'y'.repeat(30)}… [20 more chars]`].join('\n'));
    expect(text).toContain(['  Tool call bash [b1]', '    args: {"command":"sleep 100"}', '    Result: (none: the call did not finish)'].join('\n'));
    expect(text).toContain('  Response:\n    (no text)\n');
    expect(text).toContain('  Model error (HTTP 500): boom\n');
    expect(text).toContain('No session/end line: the session is still running, or its process died.\n');
    expect(text.endsWith('Warnings:\n  line 8: skipped a torn last line (12 bytes)\n')).toBe(true);
  });

  it('shows an errored result with its code and an interrupted sub-call', () => {
    const events = stamp([
      { type: 'llm/request', step: 1, tools: ['run_code'], system: 's' },
      { type: 'tool/call', id: 'c', name: 'run_code', args: { code: 'await tools.bash({})', description: 'x' } },
      { type: 'tool/ptc-dispatch-start', parentId: 'c', id: 'c:ptc:1', tool: 'bash', args: {} },
      { type: 'tool/result', id: 'c', name: 'run_code', content: 'TIMEOUT: took too long', isError: true, error: { code: 'TIMEOUT', message: 'took too long' } },
      { type: 'session/end', reason: 'aborted', steps: 1 },
    ]);
    const text = formatSession(events);
    expect(text.startsWith('Session (no session/start line)\n')).toBe(true);
    expect(text).toContain('      bash [c:ptc:1] {} -> (no result: interrupted)\n    Result (error TIMEOUT):\n      TIMEOUT: took too long\n');
    expect(text).toContain('End: aborted after 1 step\n');
  });
});

describe('goal lines', () => {
  it('shows the goal, each round with its budget left, the checks and the outcome', () => {
    const text = formatSession(
      stamp([
        { type: 'session/start', sessionId: 's', preset: 'standard', cwd: '/w', model: 'm', mode: 'native' },
        { type: 'goal/set', objective: 'green tests', check: 'npm test', budget: { maxRounds: 3 } },
        { type: 'goal/round', round: 1, left: { rounds: 3 } },
        { type: 'user/message', text: 'Goal: green tests' },
        { type: 'session/end', reason: 'completed', steps: 1 },
        { type: 'goal/check', round: 1, command: 'npm test', exitCode: 1, passed: false, output: 'CHECK FAILED' },
        { type: 'session/resume', preset: 'standard', model: 'm', mode: 'native' },
        { type: 'goal/round', round: 2, left: { rounds: 2 }, resumed: true },
        { type: 'session/end', reason: 'completed', steps: 2 },
        { type: 'goal/abandoned', round: 2, reason: 'max-rounds', message: 'not met in 2 rounds' },
      ]),
    );
    expect(text).toContain('Goal set: green tests\n  check: npm test\n  budget: 3 rounds');
    expect(text).toContain('Goal round 1: left 3 rounds');
    expect(text).toContain('Goal check (round 1) failed, exit 1: npm test\n  CHECK FAILED');
    expect(text).toContain('Goal round 2 (resumed): left 2 rounds');
    expect(text).toContain('Goal abandoned in round 2 (max-rounds): not met in 2 rounds');
  });
});
