// The model of `ptc eval --replay`: a real HTTP server on 127.0.0.1 speaking the OpenAI
// chat-completions wire format (SSE), which the real provider client talks to. Each task run gets
// its own model id; the server routes a request by that id to the run's script:
//   ptc       step 1: run_code with the task's reference program; step 2: "Answer: <its result>".
//   standard  the same program runs here, on the host, with a `tools` object whose every call is one
//             model step (one tool call per response, as the paper's JSON-call baseline); the
//             value of a call is read back from the tool message the next request carries.
// Token counts are real: the request and the reply are counted with the o200k_base tokenizer and
// reported as the usage of each response; the previous request's count is reported as cached input
// (it is a prefix of the next). docs/eval.md, "Replay".

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { toJson } from './m3tooleval/py-value.js';
import { literalEval } from './m3tooleval/python-literal.js';

/** One tool call a scripted reply makes. */
interface ReplyCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}

interface Reply {
  readonly text?: string;
  readonly toolCalls?: readonly ReplyCall[];
}

/** The part of an OpenAI chat request the scripts read. */
interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: unknown;
}
interface ChatRequest {
  readonly model?: string;
  readonly messages?: readonly ChatMessage[];
  readonly tools?: unknown;
  readonly stream?: boolean;
  readonly stream_options?: { include_usage?: boolean };
}

/** Answers the requests of one task run. */
export interface ReplayScript {
  reply(request: ChatRequest): Promise<Reply>;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === 'object' && part !== null && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
  }
  return '';
}

/** The content of the request's last tool message. */
function lastToolResult(request: ChatRequest): string | undefined {
  const messages = request.messages ?? [];
  const last = messages[messages.length - 1];
  return last?.role === 'tool' ? textOf(last.content) : undefined;
}

/** The async-function constructor, for running a reference program body on the host. */
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<unknown>;

/** ptc: one run_code call with the program, then the answer read from its result. */
export function ptcScript(program: string): ReplayScript {
  return {
    async reply(request) {
      const result = lastToolResult(request);
      if (result === undefined) {
        return { toolCalls: [{ id: 'call_1', name: 'run_code', args: { code: program, description: 'Reference solution' } }] };
      }
      return { text: `Answer: ${result.trim()}` };
    },
  };
}

type ProgramEvent = { kind: 'call'; name: string; args: unknown } | { kind: 'done'; value: unknown } | { kind: 'failed'; message: string };

/**
 * standard: runs the program on the host; each `tools.x(args)` suspends it until the model step
 * that carries the call's result. `stringTools` names the tools whose value is their text; the
 * others' text is Python's str() of a value, read back with literal_eval.
 */
export function standardScript(program: string, stringTools: ReadonlySet<string>): ReplayScript {
  const events: ProgramEvent[] = [];
  let wake: (() => void) | undefined;
  let pending: { name: string; resolve: (v: unknown) => void; reject: (e: Error) => void } | undefined;
  let started = false;
  let callCount = 0;
  const emit = (event: ProgramEvent): void => {
    events.push(event);
    wake?.();
  };
  const tools = new Proxy(
    {},
    {
      get: (_target, name) => (args: unknown) =>
        new Promise((resolve, reject) => {
          pending = { name: String(name), resolve, reject };
          emit({ kind: 'call', name: String(name), args: args ?? {} });
        }),
    },
  );
  const nextEvent = async (): Promise<ProgramEvent> => {
    while (events.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    return events.shift()!;
  };
  return {
    async reply(request) {
      if (!started) {
        started = true;
        const run = new AsyncFunction('tools', program);
        run(tools).then(
          (value) => emit({ kind: 'done', value }),
          (error: unknown) => emit({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
        );
      } else if (pending) {
        const call = pending;
        pending = undefined;
        const content = lastToolResult(request) ?? '';
        if (/^Error \[[A-Z_]+\]/.test(content)) call.reject(new Error(content));
        else call.resolve(decodeToolText(content, stringTools.has(call.name)));
      }
      const event = await nextEvent();
      if (event.kind === 'call') return { toolCalls: [{ id: `call_${++callCount}`, name: event.name, args: event.args }] };
      if (event.kind === 'done') return { text: `Answer: ${String(event.value)}` };
      return { text: `I could not solve it: ${event.message}` };
    },
  };
}

/** A tool's value from its text: the text itself for string tools, else the Python literal it prints. */
function decodeToolText(content: string, isString: boolean): unknown {
  if (isString) return content;
  try {
    return toJson(literalEval(content));
  } catch {
    return content;
  }
}

/** Tokens of what a request puts in the model's context: its messages and tool schemas. */
export function requestTokens(request: ChatRequest): number {
  let total = 0;
  for (const message of request.messages ?? []) {
    total += countTokens(textOf(message.content));
    if (message.tool_calls !== undefined) total += countTokens(JSON.stringify(message.tool_calls));
  }
  if (request.tools !== undefined) total += countTokens(JSON.stringify(request.tools));
  return total;
}

function replyTokens(reply: Reply): number {
  return countTokens(reply.text ?? '') + (reply.toolCalls ?? []).reduce((n, c) => n + countTokens(`${c.name}${JSON.stringify(c.args)}`), 0);
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>/v1`, for resolveModel's `baseUrl`. */
  readonly baseUrl: string;
  /** Registers a script under a fresh model id; returns the id. */
  add(script: ReplayScript): string;
  /** Forgets a script once its run ended. */
  remove(modelId: string): void;
  close(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const scripts = new Map<string, ReplayScript>();
  // The prompt tokens of each run's previous request: the next request starts with it (the loop
  // only appends), so it is what a provider's prefix cache could serve, reported as cached input.
  const previousPrompt = new Map<string, number>();
  let next = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void handle(req.method ?? '', req.url ?? '', Buffer.concat(chunks).toString('utf8'), res);
    });
  });

  const handle = async (method: string, url: string, body: string, res: ServerResponse): Promise<void> => {
    let request: ChatRequest;
    try {
      request = JSON.parse(body) as ChatRequest;
    } catch {
      return sendError(res, 400, 'the body is not JSON');
    }
    if (method !== 'POST' || !url.split('?')[0]!.endsWith('/chat/completions')) return sendError(res, 404, `no route for ${method} ${url}`);
    const script = scripts.get(request.model ?? '');
    if (!script) return sendError(res, 404, `no replay script for model ${String(request.model)}`);
    let reply: Reply;
    try {
      reply = await script.reply(request);
    } catch (error) {
      return sendError(res, 500, error instanceof Error ? error.message : String(error));
    }
    const usage = { prompt_tokens: requestTokens(request), completion_tokens: replyTokens(reply) };
    const cached = Math.min(previousPrompt.get(request.model ?? '') ?? 0, usage.prompt_tokens);
    previousPrompt.set(request.model ?? '', usage.prompt_tokens);
    sendStream(res, request, reply, { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens, prompt_tokens_details: { cached_tokens: cached } });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    add(script) {
      const id = `replay-${++next}`;
      scripts.set(id, script);
      return id;
    },
    remove: (id) => {
      scripts.delete(id);
      previousPrompt.delete(id);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendError(res: ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({ error: { message: `replay model: ${message}`, type: 'replay_error' } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendStream(res: ServerResponse, request: ChatRequest, reply: Reply, usage: Record<string, unknown>): void {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, withUsage = false): string =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-replay',
      object: 'chat.completion.chunk',
      created: 0,
      model: request.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(withUsage ? { usage } : {}),
    })}\n\n`;
  const calls = reply.toolCalls ?? [];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: '' }));
  if (reply.text) res.write(chunk({ content: reply.text }));
  calls.forEach((call, index) => {
    res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] }));
  });
  res.write(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop', request.stream_options?.include_usage === true));
  res.end('data: [DONE]\n\n');
}
