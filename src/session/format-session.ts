// `ptc sessions show <id>`: a whole session as readable text, one block per step. Tool calls are shown
// in the order the model made them, each with its arguments, its `run_code` sub-calls indented
// under it, and its result; long values are cut for display (the log itself holds them whole).

import type { JsonValue } from '../json.js';
import { SESSION_SHOW_MAX_CHARS } from '../limits.js';
import type { SessionEvent } from './events.js';
import { formatTime } from './list.js';

export interface FormatSessionOptions {
  /** Cut each text, argument or result to this many characters; default SESSION_SHOW_MAX_CHARS. */
  readonly maxChars?: number;
  /** The reader's warnings, listed at the end. */
  readonly warnings?: readonly string[];
}

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

interface Dispatch {
  readonly id: string;
  start?: Ev<'tool/ptc-dispatch-start'>;
  done?: Ev<'tool/ptc-dispatch'>;
}

interface Call {
  readonly id: string;
  name: string;
  args: JsonValue | undefined;
  result?: Ev<'tool/result'>;
  readonly dispatches: Map<string, Dispatch>;
}

interface Step {
  readonly kind: 'step';
  readonly step: number;
  request?: Ev<'llm/request'>;
  response?: Ev<'llm/response'>;
  readonly calls: Map<string, Call>;
  /** Deferred contexts and model errors, in log order. */
  readonly notes: string[][];
}

type Block =
  | { kind: 'user'; text: string }
  | { kind: 'resume'; event: Ev<'session/resume'> }
  | { kind: 'turn-end'; event: Ev<'session/end'> }
  | { kind: 'goal'; lines: string[] }
  | Step;

export function formatSession(events: readonly SessionEvent[], options: FormatSessionOptions = {}): string {
  const max = options.maxChars ?? SESSION_SHOW_MAX_CHARS;
  const blocks: Block[] = [];
  let start: Ev<'session/start'> | undefined;
  let end: Ev<'session/end'> | undefined;
  let current: Step | undefined;

  const stepBlock = (step: number): Step => {
    if (current && current.step === step) return current;
    current = { kind: 'step', step, calls: new Map(), notes: [] };
    blocks.push(current);
    return current;
  };
  // Tool events belong to the latest step; before any request they get a step 0 of their own.
  const latest = (): Step => current ?? stepBlock(0);
  const callOf = (step: Step, id: string, name = '?'): Call => {
    let call = step.calls.get(id);
    if (!call) {
      call = { id, name, args: undefined, dispatches: new Map() };
      step.calls.set(id, call);
    }
    return call;
  };
  const dispatchOf = (call: Call, id: string): Dispatch => {
    let d = call.dispatches.get(id);
    if (!d) {
      d = { id };
      call.dispatches.set(id, d);
    }
    return d;
  };

  for (const event of events) {
    switch (event.type) {
      case 'session/start':
        start ??= event;
        break;
      case 'user/message':
        blocks.push({ kind: 'user', text: event.text });
        current = undefined;
        break;
      case 'llm/request':
        stepBlock(event.step).request = event;
        break;
      case 'llm/response': {
        const step = stepBlock(event.step);
        step.response = event;
        for (const tc of event.toolCalls) {
          const call = callOf(step, tc.id, tc.name);
          call.args ??= tc.args;
        }
        break;
      }
      case 'tool/call': {
        const call = callOf(latest(), event.id, event.name);
        call.name = event.name;
        call.args = event.args;
        break;
      }
      case 'tool/result': {
        const call = callOf(latest(), event.id, event.name);
        call.result = event;
        break;
      }
      case 'tool/ptc-dispatch-start':
        dispatchOf(callOf(latest(), event.parentId), event.id).start = event;
        break;
      case 'tool/ptc-dispatch':
        dispatchOf(callOf(latest(), event.parentId), event.id).done = event;
        break;
      case 'context/deferred':
        stepBlock(event.step).notes.push([`Deferred context (${event.source}):`, ...indent(clip(event.text, max), 2)]);
        break;
      case 'context/compaction':
        stepBlock(event.step).notes.push([
          `Compacted (${event.trigger}): ${event.pruned.length} result${event.pruned.length === 1 ? '' : 's'} pruned${event.summary !== undefined ? `, steps before ${event.keepFromStep} summarised` : ''}; about ${event.tokensBefore} → ${event.tokensAfter} tokens`,
          ...(event.summary !== undefined ? indent(clip(event.summary, max), 2) : []),
        ]);
        break;
      case 'context/compaction-failed':
        stepBlock(event.step).notes.push([`Compaction failed (${event.trigger}), nothing changed: ${event.message}`]);
        break;
      case 'llm/error':
        stepBlock(event.step).notes.push([`Model error${event.status !== undefined ? ` (HTTP ${event.status})` : ''}: ${event.message}`]);
        break;
      case 'session/resume':
        blocks.push({ kind: 'resume', event });
        current = undefined;
        end = undefined;
        break;
      case 'goal/set':
      case 'goal/round':
      case 'goal/check':
      case 'goal/met':
      case 'goal/abandoned':
        blocks.push({ kind: 'goal', lines: goalLines(event, max) });
        current = undefined;
        break;
      case 'plan/mode':
        blocks.push({ kind: 'goal', lines: [`Plan mode ${event.active ? 'on' : 'off'} (${event.by})`] });
        current = undefined;
        break;
      case 'plan/review':
        blocks.push({
          kind: 'goal',
          lines: [`Plan ${event.decision}${event.comment !== undefined ? `: ${clip(event.comment, max)}` : ''}`, ...(event.steps ?? []).map((s, i) => `  ${i + 1}. ${s}`)],
        });
        current = undefined;
        break;
      case 'session/end':
        // The end of a turn; only the last one, with nothing after it, ends the session for now.
        end = event;
        blocks.push({ kind: 'turn-end', event });
        current = undefined;
        break;
    }
  }
  if (end !== undefined && blocks.at(-1)?.kind === 'turn-end') blocks.pop();

  const out: string[] = [];
  if (start) {
    out.push(`Session ${start.sessionId}`);
    out.push(`  started  ${formatTime(start.ts)}`);
    out.push(`  preset   ${start.preset} (${start.mode} mode)`);
    out.push(`  model    ${start.model}`);
    out.push(`  cwd      ${start.cwd}`);
  } else {
    out.push('Session (no session/start line)');
  }
  for (const block of blocks) {
    out.push('');
    if (block.kind === 'user') {
      out.push('User:', ...indent(clip(block.text, max), 2));
      continue;
    }
    if (block.kind === 'goal') {
      out.push(...block.lines);
      continue;
    }
    if (block.kind === 'turn-end') {
      out.push(`Turn ended: ${describeEnd(block.event)}`);
      continue;
    }
    if (block.kind === 'resume') {
      const e = block.event;
      out.push(`Resumed ${formatTime(e.ts)}: preset ${e.preset} (${e.mode} mode), model ${e.model}`);
      continue;
    }
    out.push(block.step === 0 ? 'Before the first request' : `Step ${block.step}`);
    if (block.request) {
      const tools = block.request.tools.length > 0 ? block.request.tools.join(', ') : '(none)';
      out.push(`  Request: tools ${tools}; system prompt ${block.request.system.length} chars`);
    }
    if (block.response) {
      const usage = formatUsage(block.response.usage);
      out.push(`  Response${block.response.finishReason ? ` (${block.response.finishReason})` : ''}${usage}:`);
      out.push(...indent(block.response.text === '' ? '(no text)' : clip(block.response.text, max), 4));
    }
    for (const call of block.calls.values()) out.push(...formatCall(call, max));
    for (const note of block.notes) out.push(...indent(note.join('\n'), 2));
  }
  out.push('');
  if (end) {
    out.push(`End: ${describeEnd(end)}`);
  } else {
    out.push('No session/end line: the session is still running, or its process died.');
  }
  if (options.warnings && options.warnings.length > 0) {
    out.push('', 'Warnings:', ...options.warnings.map((w) => `  ${w}`));
  }
  return out.join('\n') + '\n';
}

/** A goal line of the log (docs/goals.md) as text. */
function goalLines(event: Ev<'goal/set' | 'goal/round' | 'goal/check' | 'goal/met' | 'goal/abandoned'>, max: number): string[] {
  switch (event.type) {
    case 'goal/set': {
      const b = event.budget;
      const budget = [`${b.maxRounds} rounds`, ...(b.maxTokens !== undefined ? [`${b.maxTokens} tokens`] : []), ...(b.maxTimeMs !== undefined ? [`${b.maxTimeMs} ms`] : [])];
      return [`Goal set: ${clip(event.objective, max)}`, ...(event.check !== undefined ? [`  check: ${event.check}`] : []), `  budget: ${budget.join(', ')}`];
    }
    case 'goal/round': {
      const l = event.left;
      const left = [`${l.rounds} rounds`, ...(l.tokens !== undefined ? [`${l.tokens} tokens`] : []), ...(l.timeMs !== undefined ? [`${l.timeMs} ms`] : [])];
      return [`Goal round ${event.round}${event.resumed === true ? ' (resumed)' : ''}: left ${left.join(', ')}`];
    }
    case 'goal/check':
      return [`Goal check (round ${event.round}) ${event.passed ? 'passed' : `failed, exit ${event.exitCode ?? 'none'}`}: ${event.command}`, ...indent(clip(event.output, max), 2)];
    case 'goal/met':
      return [`Goal met in round ${event.round}:`, ...indent(clip(event.evidence, max), 2)];
    case 'goal/abandoned':
      return [`Goal abandoned in round ${event.round} (${event.reason}): ${event.message}`];
  }
}

function describeEnd(end: Ev<'session/end'>): string {
  return `${end.reason} after ${end.steps} step${end.steps === 1 ? '' : 's'}${end.error ? `: ${end.error}` : ''}`;
}

function formatCall(call: Call, max: number): string[] {
  const out = [`  Tool call ${call.name} [${call.id}]`];
  const args = call.args;
  if (args === undefined) {
    out.push('    args: (not logged)');
  } else if (isObject(args) && typeof args['code'] === 'string') {
    // A program: show it as code rather than as one escaped JSON string.
    const { code, ...rest } = args;
    if (Object.keys(rest).length > 0) out.push(`    args: ${clip(JSON.stringify(rest), max)}`);
    out.push('    code:', ...indent(clip(code, max), 6));
  } else {
    out.push(`    args: ${clip(JSON.stringify(args), max)}`);
  }
  if (call.dispatches.size > 0) {
    out.push(`    Sub-calls (${call.dispatches.size}):`);
    for (const d of call.dispatches.values()) {
      const tool = d.done?.tool ?? d.start?.tool ?? '?';
      const dArgs = d.done?.args ?? d.start?.args;
      const head = `      ${tool} [${d.id}] ${dArgs === undefined ? '' : clip(JSON.stringify(dArgs), Math.min(max, 200))}`.trimEnd();
      if (!d.done) {
        out.push(`${head} -> (no result: interrupted)`);
        continue;
      }
      out.push(`${head} -> ${d.done.isError ? 'error' : 'ok'}`);
      if (d.done.content !== '') out.push(...indent(clip(d.done.content, Math.min(max, 500)), 8));
    }
  }
  if (call.result) {
    const code = call.result.error ? ` ${call.result.error.code}` : '';
    out.push(`    Result (${call.result.isError ? `error${code}` : 'ok'}):`);
    out.push(...indent(call.result.content === '' ? '(empty)' : clip(call.result.content, max), 6));
  } else {
    out.push('    Result: (none: the call did not finish)');
  }
  return out;
}

function formatUsage(usage: { readonly inputTokens?: number; readonly outputTokens?: number }): string {
  const parts: string[] = [];
  if (usage.inputTokens !== undefined) parts.push(`in ${usage.inputTokens}`);
  if (usage.outputTokens !== undefined) parts.push(`out ${usage.outputTokens}`);
  return parts.length > 0 ? ` [tokens ${parts.join(', ')}]` : '';
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Cuts `text` to `max` characters, saying how many were left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = max;
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return `${text.slice(0, keep)}… [${text.length - keep} more chars]`;
}

function indent(text: string, spaces: number): string[] {
  const pad = ' '.repeat(spaces);
  return text.split('\n').map((line) => (line === '' ? '' : pad + line));
}
