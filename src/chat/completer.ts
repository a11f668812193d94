// Tab completion of the chat prompt (readline's `completer`): `/he` → `/help`, and the argument of a
// command that has candidates (`/preset `, `/model `, `/approve `). Other lines complete nothing.

import type { ChatControl } from './slash-commands.js';
import { SLASH_COMMANDS } from './slash-commands.js';

/** readline's completer result: the candidates, and the part of the line they replace. */
export type Completion = [string[], string];

export function completeLine(line: string, control: ChatControl): Completion {
  if (!line.startsWith('/') || line.startsWith('//')) return [[], line];
  const space = line.indexOf(' ');
  if (space < 0) {
    const hits = SLASH_COMMANDS.filter((c) => c.summary !== '' && `/${c.name}`.startsWith(line)).map((c) => `/${c.name}`);
    return [hits.length === 1 ? [`${hits[0]!} `] : hits, line];
  }
  const command = SLASH_COMMANDS.find((c) => c.name === line.slice(1, space));
  const partial = line.slice(space + 1).trimStart();
  if (command?.argumentsOf === undefined || partial.includes(' ')) return [[], partial];
  let candidates: readonly string[];
  try {
    candidates = command.argumentsOf(control);
  } catch {
    // Completion must never throw into readline (an unreadable preset directory, say).
    candidates = [];
  }
  return [candidates.filter((c) => c.startsWith(partial)), partial];
}
