import { describe, expect, it } from 'vitest';
import { MAX_FRAME_DEPTH } from '../limits.js';
import { encodeFrame, encodeValueResult, parseChildFrame } from './frames.js';

describe('parseChildFrame', () => {
  it.each([
    ['{"type":"ready"}', { type: 'ready' }],
    ['{"type":"call","id":1,"global":"tools","member":"__proto__","args":{"__proto__":1}}', { type: 'call', id: 1, global: 'tools', member: '__proto__' }],
    ['{"type":"log","stream":"stderr","text":"x"}', { type: 'log', stream: 'stderr', text: 'x' }],
    ['{"type":"done","ok":true}', { type: 'done', ok: true }],
    ['{"type":"done","ok":true,"value":null}', { type: 'done', ok: true, value: null }],
    ['{"type":"done","ok":false,"error":{"code":"EXCEPTION","message":"m"}}', { type: 'done', ok: false, error: { code: 'EXCEPTION', message: 'm' } }],
    // A kept process's channel key (docs/in-memory-mode.md): kept for the session to compare.
    ['{"type":"call","key":"k1","id":1,"global":"t","member":"m","args":{}}', { type: 'call', id: 1, key: 'k1' }],
    ['{"type":"done","key":"k1","ok":true,"value":1}', { type: 'done', ok: true, value: 1, key: 'k1' }],
    ['{"type":"done","key":"k1","ok":false,"error":{"code":"EXCEPTION","message":"m"}}', { type: 'done', ok: false, key: 'k1' }],
  ])('accepts %s', (line, expected) => {
    const parsed = parseChildFrame(line);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.frame).toMatchObject(expected);
  });

  it('keeps a "__proto__" key of call arguments as an own property', () => {
    const parsed = parseChildFrame('{"type":"call","id":1,"global":"t","member":"m","args":{"__proto__":{"x":1}}}');
    expect(parsed.ok && parsed.frame.type === 'call' && Object.keys(parsed.frame.args as object)).toEqual(['__proto__']);
  });

  it.each([
    ['', /not JSON/],
    ['not json', /not JSON/],
    ['[1,2]', /not a JSON object/],
    ['null', /not a JSON object/],
    ['{"type":"nope"}', /unknown frame type/],
    ['{}', /unknown frame type/],
    ['{"type":"ready","x":1}', /unknown field/],
    ['{"type":"call","id":0,"global":"t","member":"m","args":{}}', /positive integer/],
    ['{"type":"call","id":1.5,"global":"t","member":"m","args":{}}', /positive integer/],
    ['{"type":"call","id":"1","global":"t","member":"m","args":{}}', /positive integer/],
    ['{"type":"call","id":1,"global":1,"member":"m","args":{}}', /strings/],
    ['{"type":"call","id":1,"global":"t","member":"m"}', /without args/],
    ['{"type":"log","stream":"fd9","text":"x"}', /stream/],
    ['{"type":"log","stream":"stdout","text":5}', /text/],
    ['{"type":"done","ok":"yes"}', /boolean/],
    ['{"type":"call","key":1,"id":1,"global":"t","member":"m","args":{}}', /key must be a string/],
    ['{"type":"done","key":null,"ok":true}', /key must be a string/],
    ['{"type":"log","key":"k1","stream":"stdout","text":"x"}', /unknown field/],
    ['{"type":"done","ok":false,"error":{"code":"TIMEOUT","message":"m"}}', /not one the child may report/],
    ['{"type":"done","ok":false,"error":{"code":"EXCEPTION"}}', /message/],
    ['{"type":"done","ok":false,"error":{"code":"EXCEPTION","message":"m","x":1}}', /unknown fields/],
    ['{"type":"done","ok":true,"value":1,"extra":2}', /unknown field/],
  ])('rejects %j', (line, reason) => {
    const parsed = parseChildFrame(line);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it('encodes one frame per line', () => {
    expect(encodeFrame({ type: 'result', id: 3, ok: true, value: 'a\nb' })).toBe('{"type":"result","id":3,"ok":true,"value":"a\\nb"}\n');
  });

  it.each([['a\nb'], [0], [null], [false], [{ x: 1, '"': ['\u2028', -0] }], [[]], [Number.MAX_SAFE_INTEGER]])(
    'encodes a result with value %j as encodeFrame does',
    (value) => {
      const id = 9_007_199_254_740_991;
      expect(encodeValueResult(id, JSON.stringify(value))).toBe(encodeFrame({ type: 'result', id, ok: true, value }));
    },
  );
});

describe('parseChildFrame nesting bound', () => {
  const frame = (levels: number) => `{"type":"done","ok":true,"value":${'['.repeat(levels)}${']'.repeat(levels)}}`;

  it(`accepts a value ${MAX_FRAME_DEPTH - 1} levels deep (the frame is one more) and refuses one level more before parsing`, () => {
    expect(parseChildFrame(frame(MAX_FRAME_DEPTH - 1)).ok).toBe(true);
    const parsed = parseChildFrame(frame(MAX_FRAME_DEPTH));
    expect(parsed).toEqual({ ok: false, reason: `nested deeper than ${MAX_FRAME_DEPTH} levels of arrays and objects` });
  });

  it('refuses a call frame whose arguments nest 100,000 deep', () => {
    const line = `{"type":"call","id":1,"global":"t","member":"m","args":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    expect(parseChildFrame(line).ok).toBe(false);
  });

  it('counts no brackets inside strings', () => {
    expect(parseChildFrame(`{"type":"log","stream":"stdout","text":${JSON.stringify('['.repeat(10_000))}}`).ok).toBe(true);
  });
});
