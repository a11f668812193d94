// `session/load`: the loaded session's log replayed to the editor as the session/update notifications
// a live turn sends (docs/acp.md, "Loading a session"): user messages, the model's text, each tool
// call with its program, sub-calls and result (through the same ToolCallReporter), and the last plan.
// Diffs are not replayed: the log keeps a call's arguments and result, not the file's old text. A call
// of an interrupted turn that never got a result is shown failed, as the next request sends it.

import { todosFromSession } from '../builtin-tools/todo.js';
import type { SessionEvent } from '../session/index.js';
import type { ToolCallReporter } from './tool-call-reporter.js';

export function replaySession(events: readonly SessionEvent[], reporter: ToolCallReporter): void {
  const names = new Map<string, string>();
  const open = new Set<string>();
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        reporter.send({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: event.text } });
        break;
      case 'llm/response':
        if (event.text !== '') reporter.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
        break;
      case 'tool/call':
        names.set(event.id, event.name);
        open.add(event.id);
        reporter.report({ kind: 'tool-start', id: event.id, name: event.name, args: event.args });
        break;
      case 'tool/ptc-dispatch-start':
        reporter.report({ kind: 'sub-call-start', parentId: event.parentId, id: event.id, tool: event.tool, args: event.args });
        break;
      case 'tool/ptc-dispatch':
        reporter.report({ kind: 'sub-call-end', parentId: event.parentId, id: event.id, tool: event.tool, isError: event.isError, content: event.content });
        break;
      case 'tool/result':
        open.delete(event.id);
        reporter.report({ kind: 'tool-end', id: event.id, name: names.get(event.id) ?? event.name, ms: 0, isError: event.isError, subCalls: 0, content: event.content });
        break;
      default:
        break;
    }
  }
  for (const id of open) {
    reporter.report({ kind: 'tool-end', id, name: names.get(id) ?? '', ms: 0, isError: true, subCalls: 0, content: 'The call did not finish (the session was interrupted).' });
  }
  const plan = todosFromSession(events);
  if (plan !== undefined) reporter.plan(plan);
}
