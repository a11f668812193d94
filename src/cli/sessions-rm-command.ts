// `ptc sessions rm <id>`: removes a session's log and its spill directory (docs/sessions.md, "Spill").

import { removeSession, resolveSessionDir } from '../session/index.js';
import type { CommandOutput } from './commands.js';

export function runSessionsRemove(options: { id: string; sessionDir?: string; env: Readonly<Record<string, string | undefined>> }): CommandOutput {
  const dir = resolveSessionDir({ ...(options.sessionDir !== undefined ? { sessionDir: options.sessionDir } : {}), env: options.env });
  const removed = removeSession(dir, options.id);
  const spill = removed.spillDir !== undefined ? ` and ${removed.spillDir}` : '';
  return { stdout: '', stderr: `ptc: removed session ${removed.sessionId} (${removed.file}${spill})\n`, exitCode: 0 };
}
