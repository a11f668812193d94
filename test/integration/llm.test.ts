// The real AI SDK providers against the scripted model server on loopback: streaming, tool calls,
// the retry policy and abort, the way the agent loop drives a model step.

import { generateText, jsonSchema, streamText, type LanguageModelUsage, type ToolSet } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors.js';
import {
  describeModelError,
  resolveModel,
  SDK_CALL_SETTINGS,
  withModelRetry,
  type ResolvedModel,
  type RetryEvent,
} from '../../src/llm/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedReply, type ScriptedServer } from '../fixtures/scripted-openai-server.js';

/** Tiny waits so retry tests stay fast; the bound (3 retries) is the real one. */
const TEST_POLICY = { baseDelayMs: 1, maxDelayMs: 20 };

let server: ScriptedServer | undefined;

async function start(script: ScriptedReply[]): Promise<ScriptedServer> {
  server = await startScriptedOpenAIServer(script);
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function compatible(s: ScriptedServer, env: Record<string, string | undefined> = { PTC_API_KEY: 'local-key' }): ResolvedModel {
  return resolveModel({ baseUrl: s.baseUrl, model: 'scripted-model', env });
}

/** The agent runs tools itself: schemas only, no execute functions. */
const tools = {
  read: {
    description: 'Read a file.',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    }),
  },
} satisfies ToolSet;

interface TurnResult {
  deltas: string[];
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  finishReason: string | undefined;
  usage: LanguageModelUsage | undefined;
  aborted: boolean;
  attempts: number;
  retries: RetryEvent[];
}

interface TurnOptions {
  signal?: AbortSignal;
  onTextDelta?: (text: string) => void;
  policy?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  onRetry?: (event: RetryEvent) => void;
}

/** One model step the way the agent loop runs it: stream, forward text, collect tool calls, retry before output. */
async function runTurn(resolved: ResolvedModel, options: TurnOptions = {}): Promise<TurnResult> {
  const deltas: string[] = [];
  const retries: RetryEvent[] = [];
  let attempts = 0;
  const outcome = await withModelRetry(
    async ({ attempt, markOutputStarted }) => {
      attempts = attempt;
      const result = streamText({
        model: resolved.model,
        system: 'You are a test.',
        prompt: 'Say something.',
        tools,
        ...SDK_CALL_SETTINGS,
        ...(options.signal !== undefined ? { abortSignal: options.signal } : {}),
        onError: () => {},
      });
      let aborted = false;
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') {
          markOutputStarted();
          deltas.push(part.text);
          options.onTextDelta?.(part.text);
        } else if (part.type === 'tool-input-start' || part.type === 'tool-call') {
          markOutputStarted();
        } else if (part.type === 'error') {
          throw part.error;
        } else if (part.type === 'abort') {
          aborted = true;
        }
      }
      if (aborted) return { aborted, toolCalls: [], finishReason: undefined, usage: undefined };
      return {
        aborted,
        toolCalls: (await result.toolCalls).map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input })),
        finishReason: await result.finishReason,
        usage: await result.usage,
      };
    },
    {
      policy: { ...TEST_POLICY, ...options.policy },
      context: resolved,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onRetry: (event) => {
        retries.push(event);
        options.onRetry?.(event);
      },
    },
  );
  return { ...outcome, deltas, attempts, retries };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('providers against the scripted server', () => {
  it('streams text in several deltas, with usage, over the real openai-compatible client', async () => {
    const s = await start([reply.text('Hello from the scripted model.', { usage: { promptTokens: 11, completionTokens: 6 } })]);
    const turn = await runTurn(compatible(s));
    expect(turn.deltas.length).toBeGreaterThan(1);
    expect(turn.deltas.join('')).toBe('Hello from the scripted model.');
    expect(turn.finishReason).toBe('stop');
    expect(turn.usage?.inputTokens).toBe(11);
    expect(turn.usage?.outputTokens).toBe(6);

    expect(s.requests).toHaveLength(1);
    const request = s.requests[0];
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer local-key');
    expect(request?.json).toMatchObject({
      model: 'scripted-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'Say something.' },
      ],
    });
  });

  it('delivers a scripted tool call as a tool call with parsed arguments', async () => {
    const s = await start([reply.toolCalls([{ id: 'call_a', name: 'read', args: { path: 'notes/a.txt' } }], { text: 'Let me look.' })]);
    const turn = await runTurn(compatible(s));
    expect(turn.deltas.join('')).toBe('Let me look.');
    expect(turn.toolCalls).toEqual([{ toolCallId: 'call_a', toolName: 'read', input: { path: 'notes/a.txt' } }]);
    expect(turn.finishReason).toBe('tool-calls');
    expect(s.requests[0]?.json).toMatchObject({
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Read a file.', parameters: { type: 'object', required: ['path'] } },
        },
      ],
    });
  });

  it('delivers two tool calls of one step in order', async () => {
    const s = await start([
      reply.toolCalls([
        { name: 'read', args: { path: 'a.txt' } },
        { name: 'read', args: { path: 'b.txt' } },
      ]),
    ]);
    const turn = await runTurn(compatible(s));
    expect(turn.toolCalls.map((call) => call.input)).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }]);
    expect(turn.toolCalls.map((call) => call.toolCallId)).toEqual(['call_1_0', 'call_1_1']);
  });

  it('answers a non-streaming call (generateText) with text and tool calls', async () => {
    const s = await start([reply.toolCalls([{ id: 'g1', name: 'read', args: { path: 'g.txt' } }], { text: 'Plain JSON.' })]);
    const resolved = compatible(s);
    const result = await withModelRetry(() => generateText({ model: resolved.model, prompt: 'hi', tools, ...SDK_CALL_SETTINGS }));
    expect(result.text).toBe('Plain JSON.');
    expect(result.toolCalls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input }))).toEqual([
      { toolCallId: 'g1', toolName: 'read', input: { path: 'g.txt' } },
    ]);
    expect(s.requests[0]?.json).not.toHaveProperty('stream', true);
  });

  it('sends requests through the fetch option when one is given', async () => {
    const s = await start([reply.text('via custom fetch')]);
    const seen: string[] = [];
    const countingFetch: typeof fetch = (input, init) => {
      seen.push(input instanceof Request ? input.url : String(input));
      return fetch(input, init);
    };
    const resolved = resolveModel({ baseUrl: s.baseUrl, model: 'm', env: {}, fetch: countingFetch });
    const turn = await runTurn(resolved);
    expect(turn.deltas.join('')).toBe('via custom fetch');
    expect(seen).toEqual([`${s.baseUrl}/chat/completions`]);
  });

  it('sends no Authorization header when PTC_API_KEY is not set', async () => {
    const s = await start([reply.text('ok')]);
    await runTurn(compatible(s, {}));
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('works with the deepseek provider pointed at the scripted server (same wire format)', async () => {
    const s = await start([reply.toolCall('read', { path: 'x.md' }, 'ds_1'), reply.text('DeepSeek says hi.')]);
    const resolved = resolveModel({ model: 'deepseek:deepseek-chat', providerBaseUrl: s.baseUrl, env: { DEEPSEEK_API_KEY: 'sk-test' } });
    expect(resolved.label).toBe('deepseek:deepseek-chat');

    const first = await runTurn(resolved);
    expect(first.toolCalls).toEqual([{ toolCallId: 'ds_1', toolName: 'read', input: { path: 'x.md' } }]);
    const second = await runTurn(resolved);
    expect(second.deltas.join('')).toBe('DeepSeek says hi.');

    expect(s.requests[0]?.url).toBe('/v1/chat/completions');
    expect(s.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(s.requests[0]?.json).toMatchObject({ model: 'deepseek-chat', stream: true });
  });

  it('points the anthropic provider at providerBaseUrl (its messages endpoint, its key header)', async () => {
    const s = await start([]);
    const resolved = resolveModel({ model: 'anthropic:claude-test', providerBaseUrl: s.baseUrl, env: { ANTHROPIC_API_KEY: 'ant-key' } });
    const error = await failure(runTurn(resolved, { policy: { maxRetries: 0 } }));
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]?.url).toBe('/v1/messages');
    expect(s.requests[0]?.headers['x-api-key']).toBe('ant-key');
    expect(s.requests[0]?.json).toMatchObject({ model: 'claude-test', stream: true });
    expect(describeModelError(error, resolved)).toMatchObject({ status: 404, retryable: false });
  });
});

describe('retry policy', () => {
  it('retries an HTTP 500 and succeeds on the second request', async () => {
    const s = await start([reply.error(500), reply.text('recovered')]);
    const turn = await runTurn(compatible(s));
    expect(turn.deltas.join('')).toBe('recovered');
    expect(s.requests).toHaveLength(2);
    expect(turn.attempts).toBe(2);
    expect(turn.retries).toHaveLength(1);
    expect(turn.retries[0]).toMatchObject({ attempt: 1, delayMs: 1, description: { status: 500, retryable: true } });
    // The retried request is the same request.
    expect(s.requests[1]?.body).toBe(s.requests[0]?.body);
  });

  it('honours retry-after on HTTP 429, capped at the policy maximum', async () => {
    const s = await start([
      reply.error(429, { headers: { 'retry-after': '0.01' } }),
      reply.error(429, { headers: { 'retry-after': '30' } }),
      reply.text('after the rate limit'),
    ]);
    const turn = await runTurn(compatible(s));
    expect(turn.deltas.join('')).toBe('after the rate limit');
    expect(s.requests).toHaveLength(3);
    expect(turn.retries.map((r) => r.delayMs)).toEqual([10, TEST_POLICY.maxDelayMs]);
    expect(turn.retries.every((r) => r.description.status === 429)).toBe(true);
  });

  it('gives up after the bounded number of retries with the last error', async () => {
    const s = await start([reply.error(503), reply.error(503), reply.error(503), reply.error(502), reply.text('never')]);
    const error = await failure(runTurn(compatible(s)));
    expect(s.requests).toHaveLength(4);
    expect(s.remaining()).toBe(1);
    expect(describeModelError(error)).toMatchObject({ status: 502, retryable: true });
    expect(describeModelError(error).message).toMatch(/HTTP 502/);
  });

  it('does not retry a 401, and describes it in one line naming the key variable', async () => {
    const s = await start([
      reply.error(401, { body: JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }) }),
      reply.text('never'),
    ]);
    const resolved = compatible(s);
    const error = await failure(runTurn(resolved));
    expect(s.requests).toHaveLength(1);
    const described = describeModelError(error, resolved);
    expect(described).toEqual({
      status: 401,
      retryable: false,
      message: 'The model server rejected the API key (HTTP 401) — check PTC_API_KEY.',
    });
  });

  it('does not retry once output has reached the user', async () => {
    const s = await start([reply.disconnectAfter('Half a sent'), reply.text('never')]);
    const seen: string[] = [];
    const error = await failure(runTurn(compatible(s), { onTextDelta: (text) => seen.push(text) }));
    expect(seen.join('')).toBe('Half a sent');
    expect(s.requests).toHaveLength(1);
    expect(s.remaining()).toBe(1);
    // Retryable in itself (a dropped connection); only the output already shown prevents the retry.
    expect(describeModelError(error)).toMatchObject({ retryable: true });
    expect(describeModelError(error).message).toMatch(/broke off mid-stream \(UND_ERR_SOCKET\)/);
  });

  it('with the SDK retries off and our policy at 0 retries, a 500 is one request', async () => {
    const s = await start([reply.error(500), reply.text('never')]);
    await failure(runTurn(compatible(s), { policy: { maxRetries: 0 } }));
    expect(s.requests).toHaveLength(1);
  });
});

describe('abort', () => {
  it('ends a step promptly when aborted mid-stream, and the connection is dropped', async () => {
    const s = await start([reply.hang('Streaming forever')]);
    const controller = new AbortController();
    const turn = await runTurn(compatible(s), {
      signal: controller.signal,
      onTextDelta: () => controller.abort(),
    });
    expect(turn.aborted).toBe(true);
    expect(turn.deltas.length).toBeGreaterThan(0);
    await s.waitForClose(1);
    expect(s.requests[0]?.closedEarly).toBe(true);
    expect(s.requests).toHaveLength(1);
  });

  it('ends a step that is waiting for the first byte', async () => {
    const s = await start([reply.hang()]);
    const controller = new AbortController();
    const outcome = runTurn(compatible(s), { signal: controller.signal }).then(
      (turn) => ({ turn, error: undefined }),
      (error: unknown) => ({ turn: undefined, error }),
    );
    await s.waitForRequests(1);
    controller.abort();
    const settled = await outcome;
    expect(settled.error).toBeUndefined();
    expect(settled.turn?.aborted).toBe(true);
    await s.waitForClose(1);
    expect(s.requests[0]?.closedEarly).toBe(true);
    expect(s.requests).toHaveLength(1);
  });

  it('stops waiting between attempts when aborted during backoff', async () => {
    const s = await start([reply.error(500), reply.text('never')]);
    const controller = new AbortController();
    const error = await failure(
      runTurn(compatible(s), {
        signal: controller.signal,
        policy: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
        onRetry: () => controller.abort(),
      }),
    );
    expect(s.requests).toHaveLength(1);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as AbortedError).code).toBe('ABORTED');
  });
});
