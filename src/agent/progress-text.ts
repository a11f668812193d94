// One line of terminal progress per agent event, shared by `ptc run` and `ptc chat` (stderr). A
// run_code call shows its description, each sub-call as it settles, and the first line of results.

import type { JsonValue } from '../json.js';
import { RUN_CODE_TOOL_NAME } from '../tools/tool-runtime.js';
import type { AgentProgress } from './loop.js';

const PREVIEW_CHARS = 100;

/** The line for `event`, or undefined when it shows nothing on its own (a sub-call start). */
export function progressLine(event: AgentProgress): string | undefined {
  switch (event.kind) {
    case 'step':
      return `[step ${event.step}]`;
    case 'tool-start': {
      const description = event.name === RUN_CODE_TOOL_NAME ? descriptionOf(event.args) : undefined;
      return `  → ${event.name}${description !== undefined ? ` "${preview(description)}"` : ''} (${event.id})`;
    }
    case 'sub-call-start':
      return undefined;
    case 'sub-call-end':
      return `      ${event.isError ? '✗' : '·'} ${event.tool} ${preview(firstLine(event.content))}`.trimEnd();
    case 'tool-end': {
      const sub = event.name === RUN_CODE_TOOL_NAME ? `, ${event.subCalls} sub-call${event.subCalls === 1 ? '' : 's'}` : '';
      const first = preview(firstLine(event.content));
      return `  ${event.isError ? '✗' : '✓'} ${event.name} ${event.ms} ms${sub}${first !== '' ? `: ${first}` : ''}`;
    }
  }
}

function descriptionOf(args: JsonValue): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const description = args['description'];
  return typeof description === 'string' && description.trim() !== '' ? description : undefined;
}

function firstLine(text: string): string {
  const trimmed = text.trimStart();
  const end = trimmed.indexOf('\n');
  return end < 0 ? trimmed : trimmed.slice(0, end);
}

function preview(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}
