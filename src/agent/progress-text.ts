// One line of terminal progress per agent event, shared by `ptc run` and `ptc chat` (stderr): the tool
// and its key arguments (`read src/a.ts`, `grep "TODO" **/*.ts`), a run_code call by the first line
// of its description with each sub-call indented under it as it settles, and the first line of a
// call's result when it ends. Arguments are the model's text: shown through visible() so they
// cannot move the cursor (docs/security.md, "Approval edges").

import type { JsonValue } from '../json.js';
import { MAX_PROGRESS_ARG_CHARS } from '../limits.js';
import { preview, visible } from '../terminal-text.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import type { AgentProgress } from './loop.js';
import { RESULT_PREVIEW_CHARS } from './limits.js';

/** The line for `event`, or undefined when it shows nothing on its own (a sub-call start). */
export function progressLine(event: AgentProgress): string | undefined {
  switch (event.kind) {
    case 'step':
      return `[step ${event.step}]`;
    case 'tool-start':
      return `  → ${withArgs(event.name, event.args)} (${event.id})`;
    case 'sub-call-start':
    case 'context':
      return undefined;
    case 'compaction':
      return event.failed !== undefined
        ? `  context: compaction failed (${event.failed}); about ${event.tokensAfter} tokens`
        : `  context: ${event.summarised ? 'summarised' : 'pruned'}${event.pruned > 0 ? ` ${event.pruned} old result${event.pruned === 1 ? '' : 's'}` : ''}, about ${event.tokensBefore} → ${event.tokensAfter} tokens`;
    case 'sub-call-end': {
      const error = event.isError ? firstLine(event.content) : '';
      return `      ${event.isError ? '✗' : '·'} ${withArgs(event.tool, event.args ?? {})}${error !== '' ? `: ${shown(error, RESULT_PREVIEW_CHARS)}` : ''}`;
    }
    case 'tool-end': {
      const sub = event.name === RUN_CODE_TOOL_NAME ? `, ${event.subCalls} sub-call${event.subCalls === 1 ? '' : 's'}` : '';
      const first = shown(firstLine(event.content), RESULT_PREVIEW_CHARS);
      return `  ${event.isError ? '✗' : '✓'} ${event.name} ${event.ms} ms${sub}${first !== '' ? `: ${first}` : ''}`;
    }
  }
}

/** `tool` followed by its key arguments, when it has any. */
export function withArgs(tool: string, args: JsonValue): string {
  const key = keyArguments(tool, args);
  return key === '' ? visible(tool) : `${visible(tool)} ${key}`;
}

/**
 * What identifies a call at a glance: the path of a file tool, pattern and scope of a search, the
 * command of bash, the URL of web_fetch, the description of run_code and task. Another tool (an MCP
 * tool, a plugin's) shows its first two string or number arguments as `name=value`.
 */
export function keyArguments(tool: string, args: JsonValue): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return '';
  const text = (name: string): string | undefined => {
    const value = args[name];
    return typeof value === 'string' && value.trim() !== '' ? shown(firstLine(value), MAX_PROGRESS_ARG_CHARS) : undefined;
  };
  const quoted = (name: string): string | undefined => {
    const value = text(name);
    return value === undefined ? undefined : `"${value}"`;
  };
  const join = (...parts: (string | undefined)[]) => parts.filter((p) => p !== undefined).join(' ');
  switch (tool) {
    case 'read':
    case 'write':
    case 'edit':
      return join(text('path'));
    case 'str_replace_editor':
      return join(text('command'), text('path'));
    case 'grep':
      return join(quoted('pattern'), text('glob'), text('path'));
    case 'glob':
      return join(text('pattern'), text('path'));
    case 'bash':
      return join(text('command'));
    case 'web_fetch':
      return join(text('url'));
    case 'task':
    case RUN_CODE_TOOL_NAME:
      return join(quoted('description'));
    case 'todo':
      return '';
    default: {
      const shownArgs: string[] = [];
      for (const [name, value] of Object.entries(args)) {
        if (shownArgs.length === 2) break;
        if (typeof value === 'string' || typeof value === 'number') {
          shownArgs.push(`${shown(name, MAX_PROGRESS_ARG_CHARS)}=${shown(firstLine(String(value)), MAX_PROGRESS_ARG_CHARS)}`);
        }
      }
      return shownArgs.join(' ');
    }
  }
}

function shown(text: string, max: number): string {
  return preview(visible(text), max);
}

function firstLine(text: string): string {
  const trimmed = text.trimStart();
  const end = trimmed.indexOf('\n');
  return (end < 0 ? trimmed : trimmed.slice(0, end)).trimEnd();
}
