// `ptc chat` (and `ptc` alone on a terminal): a conversation in one session. Each message is a turn
// of the agent loop; the model's text streams to stdout, progress and approval questions go to
// stderr. Ctrl-C during a turn stops it; a second Ctrl-C (or one at the prompt) exits with 130.
// Later turns continue the same log (docs/sessions.md); approvals default to `writes`
// (docs/approvals.md).

import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

import { runAgent, type AgentRunResult } from '../agent/loop.js';
import { progressLine } from '../agent/progress-text.js';
import { allowedToolsOf, installApprovals, type ApprovalAnswer, type ApprovalPolicy, type ApprovalRequest } from '../approvals/approvals.js';
import { todoProgressText } from '../builtin-tools/todo.js';
import { createHarness } from '../harness.js';
import { resolveModel } from '../llm/index.js';
import {
  continueSession,
  createSessionWriter,
  ensureSessionDir,
  latestSessionIn,
  readSession,
  resolveSessionDir,
  type SessionEvent,
  type SessionWriter,
} from '../session/index.js';
import { checkWorkspace, harnessOptionsOf, type PolicyOptions } from './commands.js';

export const EXIT_INTERRUPTED = 130;

export interface ChatOptions extends PolicyOptions {
  readonly model?: string;
  readonly baseUrl?: string;
  readonly maxSteps?: number;
  readonly sessionDir?: string;
  readonly approve: ApprovalPolicy;
  /** Continue this session (id, prefix or path) instead of starting one. */
  readonly resume?: string;
  /** Continue the latest session of this workspace. */
  readonly continueLatest?: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly input: Readable;
  readonly output: Writable;
  readonly errorOutput: Writable;
}

const PROMPT = '› ';
const ARGS_PREVIEW_CHARS = 400;

/** Runs the conversation until EOF, `/exit` or an interrupt; resolves with the exit code. */
export async function runChat(options: ChatOptions): Promise<number> {
  const cwd = checkWorkspace(options.cwd);
  const model = resolveModel({
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    env: options.env,
  });
  const dir = resolveSessionDir({ ...(options.sessionDir !== undefined ? { sessionDir: options.sessionDir } : {}), env: options.env });
  ensureSessionDir(dir);
  let session: { writer: SessionWriter; history?: readonly SessionEvent[] } | undefined;
  if (options.resume !== undefined || options.continueLatest === true) {
    const continued = continueSession(dir, options.resume ?? latestSessionIn(dir, cwd));
    session = { writer: continued.writer, history: continued.events };
  }
  let harness: Awaited<ReturnType<typeof createHarness>>;
  try {
    harness = await createHarness(harnessOptionsOf({ ...options, cwd }));
  } catch (error) {
    // Releases the continued session's turn lock.
    session?.writer.close();
    throw error;
  }
  const err = (text: string) => void options.errorOutput.write(text);
  const rl = createInterface({ input: options.input, output: options.errorOutput, terminal: isTty(options.input) && isTty(options.errorOutput) });

  let turn: AbortController | undefined;
  let exitCode: number | undefined;
  const interrupt = () => {
    if (turn !== undefined && !turn.signal.aborted) {
      err('\n^C stopping this step (Ctrl-C again to exit)\n');
      turn.abort();
      return;
    }
    exitCode = EXIT_INTERRUPTED;
    rl.close();
  };
  rl.on('SIGINT', interrupt);
  const onSignal = () => interrupt();
  process.on('SIGINT', onSignal);

  const removeApprovals = installApprovals(harness.ctx, {
    policy: options.approve,
    approver: (request, signal) => askInTerminal(rl, options.errorOutput, request, signal),
    flagHint: '--approve never',
    ...(session?.history !== undefined ? { allowedTools: allowedToolsOf(session.history) } : {}),
  });
  const offTodo = harness.ctx.on('tools/result', (event) => {
    const plan = todoProgressText(event);
    if (plan !== undefined) err(`${plan}\n`);
  });

  try {
    if (session !== undefined) err(`Continuing session ${session.writer.sessionId}.\n`);
    err(`ptc chat — preset ${harness.preset.name}, model ${model.label}, approvals "${options.approve}". Ctrl-C stops a step; Ctrl-D or /exit quits.\n`);
    for (;;) {
      const line = await question(rl, PROMPT);
      if (line === undefined || exitCode !== undefined) break;
      const task = line.trim();
      if (task === '') continue;
      if (task === '/exit' || task === '/quit') break;
      if (session === undefined) session = { writer: createSessionWriter({ dir }) };
      turn = new AbortController();
      let result: AgentRunResult;
      try {
        result = await runAgent({
          scope: harness.ctx,
          cwd,
          preset: harness.preset.name,
          model,
          task,
          sink: session.writer,
          sessionId: session.writer.sessionId,
          sessionDir: dir,
          signal: turn.signal,
          ...(session.history !== undefined ? { history: session.history } : {}),
          ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
          onText: (delta) => void options.output.write(delta),
          onProgress: (event) => {
            const text = progressLine(event);
            if (text !== undefined) err(`${text}\n`);
          },
          onRetry: (r) => err(`retrying in ${r.delayMs} ms: ${r.message}\n`),
        });
      } finally {
        turn = undefined;
      }
      if (result.text !== '' && !result.text.endsWith('\n')) options.output.write('\n');
      if (result.reason === 'max-steps') err(`(stopped after step ${result.steps} without a final answer; raise --max-steps)\n`);
      else if (result.reason === 'aborted') err('(step stopped)\n');
      else if (result.reason === 'error') err(`ptc: ${result.error ?? 'the model request failed'}\n`);
      // The next turn's history is the log as written: what `sessions show --request` would rebuild.
      session.history = readSession(session.writer.file).events;
    }
  } finally {
    process.off('SIGINT', onSignal);
    rl.close();
    await removeApprovals();
    await offTodo();
    if (session !== undefined) {
      session.writer.close();
      err(`session ${session.writer.sessionId} (${session.writer.file})\n`);
    }
    await harness.dispose();
  }
  return exitCode ?? 0;
}

/** One line from the user, or undefined at EOF / when the interface closed. */
function question(rl: Interface, prompt: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onClose = () => resolve(undefined);
    rl.once('close', onClose);
    rl.question(prompt, (answer) => {
      rl.off('close', onClose);
      resolve(answer);
    });
  });
}

/** Asks on the terminal: y = this call, a = this tool for the session, n = deny (then a reason). */
async function askInTerminal(rl: Interface, out: Writable, request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  // Everything but the frame is the model's text: shown with its control characters visible, so a
  // carriage return or an escape sequence cannot redraw the question (docs/security.md, "Approval edges").
  const lines = [`\nApproval needed: ${visible(request.tool)} ${preview(JSON.stringify(request.args))}`];
  if (request.parent !== undefined) {
    const label = request.parent.description ? ` ("${visible(request.parent.description)}")` : '';
    lines.push(`  from the program of ${visible(request.parent.tool)} ${visible(request.parent.id)}${label}:`);
    if (request.parent.program !== undefined) lines.push(...request.parent.program.split('\n').map((l) => `  | ${visible(l)}`));
  }
  // Asked beyond the policy (a protected path, a program no sandbox holds): say why, show the program.
  if (request.why !== undefined) lines.push(`  why: ${request.why}`);
  const code = typeof request.args === 'object' && request.args !== null && !Array.isArray(request.args) ? request.args['code'] : undefined;
  if (request.parent === undefined && typeof code === 'string') lines.push(...code.split('\n').map((l) => `  | ${l}`));
  out.write(`${lines.join('\n')}\n`);
  for (;;) {
    const answer = await questionUntil(rl, '[y] allow once  [a] allow this tool for the session  [n] deny: ', signal);
    if (answer === undefined) return { decision: 'deny', reason: 'no answer (the input ended)' };
    const choice = answer.trim().toLowerCase();
    if (choice === 'y' || choice === 'yes') return { decision: 'allow' };
    if (choice === 'a' || choice === 'always') return { decision: 'allow-tool' };
    if (choice === 'n' || choice === 'no') {
      const reason = await questionUntil(rl, 'reason for the model (optional): ', signal);
      return { decision: 'deny', ...(reason !== undefined && reason.trim() !== '' ? { reason: reason.trim() } : {}) };
    }
  }
}

/** A question that gives up (undefined) when `signal` aborts. */
async function questionUntil(rl: Interface, prompt: string, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return undefined;
  const onAbort = () => rl.write('\n');
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const answer = await question(rl, prompt);
    return signal.aborted ? undefined : answer;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `text` with every control, line-separator and bidi/format character written as a `\\u` escape. */
function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

function preview(text: string): string {
  return text.length > ARGS_PREVIEW_CHARS ? `${text.slice(0, ARGS_PREVIEW_CHARS - 1)}…` : text;
}

function isTty(stream: Readable | Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}
