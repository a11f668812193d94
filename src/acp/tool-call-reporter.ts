// The loop's progress as ACP tool calls (docs/acp.md): each call a `tool_call`, a run_code call's
// sub-calls updates of it, a file tool's change a `diff` content of its call, an accepted todo list
// a `plan` update. Updates are sent in order, each after the one before.

import type * as acp from '@agentclientprotocol/sdk';

import type { AgentProgress } from '../agent/loop.js';
import type { FileChangeEvent } from '../builtin-tools/file-change.js';
import type { TodoItem } from '../builtin-tools/todo.js';
import { codeFence } from '../code-fence.js';
import { renderJson, type JsonValue } from '../json.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import { MAX_ACP_PREVIEW_CHARS } from './limits.js';

interface ProgramState {
  readonly program: string;
  readonly lines: string[];
  readonly diffs: acp.ToolCallContent[];
}

export class ToolCallReporter {
  readonly #update: (u: acp.SessionUpdate) => Promise<void>;
  readonly #programs = new Map<string, ProgramState>();
  /** Native calls in flight, with the diffs their tool reported. */
  readonly #native = new Map<string, acp.ToolCallContent[]>();
  #pending: Promise<unknown> = Promise.resolve();

  constructor(update: (u: acp.SessionUpdate) => Promise<void>) {
    this.#update = update;
  }

  /** Whether `id` is a call of this reporter still running (a program's or a native one). */
  owns(id: string): boolean {
    return this.#programs.has(id) || this.#native.has(id);
  }

  report(event: AgentProgress): void {
    this.#send(this.#toUpdate(event));
  }

  /** A file change of one of this turn's calls; others (a subagent's, another session's) are ignored. */
  fileChange(event: FileChangeEvent): void {
    const content = diff(event);
    if (event.parentId !== undefined) {
      const program = this.#programs.get(event.parentId);
      if (program === undefined) return;
      program.diffs.push(content);
      this.#send({ sessionUpdate: 'tool_call_update', toolCallId: event.parentId, content: programContent(program) });
      return;
    }
    this.#native.get(event.callId)?.push(content);
  }

  /** The whole plan: the client replaces its plan with each one. */
  plan(todos: readonly TodoItem[]): void {
    this.#send({ sessionUpdate: 'plan', entries: todos.map((t) => ({ content: t.content, status: t.status, priority: 'medium' })) });
  }

  /** Any update, in order with the rest (a replayed message). */
  send(u: acp.SessionUpdate): void {
    this.#send(u);
  }

  flushed(): Promise<unknown> {
    return this.#pending;
  }

  #send(u: acp.SessionUpdate | undefined): void {
    // In order: each notification after the one before (the SDK does not wait on its own).
    if (u !== undefined) this.#pending = this.#pending.then(() => this.#update(u)).catch(() => undefined);
  }

  #toUpdate(event: AgentProgress): acp.SessionUpdate | undefined {
    switch (event.kind) {
      case 'step':
        return undefined;
      // The meter and compactions have updates of their own in ACP v1 (docs/compaction.md, "ACP").
      case 'context':
        return event.window === undefined ? undefined : { sessionUpdate: 'usage_update', used: event.estimatedTokens, size: event.window };
      case 'compaction':
        return {
          sessionUpdate: 'compaction_update',
          compactionId: `step-${event.step}`,
          status: event.failed !== undefined ? 'failed' : 'completed',
          ...(event.failed !== undefined ? { error: event.failed } : {}),
        };
      case 'tool-start': {
        if (event.name === RUN_CODE_TOOL_NAME) {
          const program = stringField(event.args, 'code') ?? '';
          this.#programs.set(event.id, { program, lines: [], diffs: [] });
          return {
            sessionUpdate: 'tool_call',
            toolCallId: event.id,
            title: stringField(event.args, 'description') ?? 'run_code',
            kind: 'execute',
            status: 'in_progress',
            rawInput: event.args,
            content: [text(fence(program))],
          };
        }
        this.#native.set(event.id, []);
        return { sessionUpdate: 'tool_call', toolCallId: event.id, title: event.name, kind: kindOf(event.name), status: 'in_progress', rawInput: event.args };
      }
      case 'sub-call-start':
      case 'sub-call-end': {
        const program = this.#programs.get(event.parentId);
        if (program === undefined) return undefined;
        if (event.kind === 'sub-call-start') program.lines.push(`→ ${event.tool} ${preview(renderJson(event.args))}`);
        else program.lines.push(`${event.isError ? '✗' : '✓'} ${event.tool} ${preview(event.content)}`);
        return { sessionUpdate: 'tool_call_update', toolCallId: event.parentId, content: programContent(program) };
      }
      case 'tool-end': {
        const program = this.#programs.get(event.id);
        const diffs = this.#native.get(event.id) ?? [];
        this.#programs.delete(event.id);
        this.#native.delete(event.id);
        const content = program !== undefined ? [...programContent(program), text(event.content)] : [...diffs, text(event.content)];
        return { sessionUpdate: 'tool_call_update', toolCallId: event.id, status: event.isError ? 'failed' : 'completed', content, rawOutput: { content: event.content, isError: event.isError } };
      }
    }
  }
}

function programContent(program: ProgramState): acp.ToolCallContent[] {
  return [text(fence(program.program)), ...(program.lines.length > 0 ? [text(program.lines.join('\n'))] : []), ...program.diffs];
}

function diff(event: FileChangeEvent): acp.ToolCallContent {
  return { type: 'diff', path: event.path, oldText: event.oldText, newText: event.newText };
}

export function kindOf(tool: string): acp.ToolKind {
  switch (tool) {
    case 'read':
      return 'read';
    case 'str_replace_editor':
    case 'write':
    case 'edit':
      return 'edit';
    case 'glob':
    case 'grep':
      return 'search';
    case 'bash':
      return 'execute';
    case 'web_fetch':
      return 'fetch';
    case 'todo':
      return 'think';
    default:
      return 'other';
  }
}

export function text(value: string): acp.ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}

export function fence(program: string): string {
  return codeFence(program, 'ts');
}

function stringField(args: JsonValue, key: string): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

function preview(value: string): string {
  const line = value.trimStart().split('\n', 1)[0] ?? '';
  return line.length > MAX_ACP_PREVIEW_CHARS ? `${line.slice(0, MAX_ACP_PREVIEW_CHARS - 1)}…` : line;
}
