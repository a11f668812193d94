// The workspace's own instructions for agents: AGENTS.md at the workspace root, or CLAUDE.md when
// there is no AGENTS.md (docs/web-tools.md). Read once per session through the file tools' race-safe
// resolver (a symlink leading outside the workspace is not followed), capped, and rendered into the
// prompt's workspace section, so every logged request carries exactly what the model was given.

import * as fs from 'node:fs';

import { MAX_WORKSPACE_INSTRUCTIONS_BYTES } from '../limits.js';
import { createPathResolver, type OpenedPath, type PathResolver } from '../builtin-tools/path-resolver.js';
import { looksBinary } from '../builtin-tools/fs-errors.js';
import { resolveWorkspacePolicy } from '../sandbox/index.js';

/** The files looked for at the workspace root, in order of preference. */
export const WORKSPACE_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;

export interface WorkspaceInstructions {
  /** Which file they came from (`AGENTS.md` or `CLAUDE.md`). */
  readonly file: string;
  /** The text kept (at most `maxBytes` of UTF-8, cut on a character boundary). */
  readonly text: string;
  /** The file's size in bytes. */
  readonly bytes: number;
  /** True when the file is longer than what `text` holds. */
  readonly truncated: boolean;
  /** The cap that applied, in bytes. */
  readonly maxBytes: number;
}

/**
 * Reads AGENTS.md, else CLAUDE.md, from the root of `cwd`. Undefined when neither is a readable text
 * file inside the workspace (missing, a directory, binary, a symlink leading outside, or no workspace).
 */
export function loadWorkspaceInstructions(cwd: string, maxBytes: number = MAX_WORKSPACE_INSTRUCTIONS_BYTES): WorkspaceInstructions | undefined {
  let resolver: PathResolver;
  try {
    resolver = createPathResolver({ policy: resolveWorkspacePolicy({ cwd }) });
  } catch {
    return undefined;
  }
  for (const file of WORKSPACE_INSTRUCTION_FILES) {
    let opened: OpenedPath;
    try {
      opened = resolver.resolve(file, 'read');
    } catch {
      continue;
    }
    try {
      if (opened.fd === undefined || opened.stat === undefined || !opened.stat.isFile()) continue;
      const head = readHead(opened.fd, maxBytes + 1);
      if (looksBinary(head)) continue;
      const truncated = head.length > maxBytes;
      // `stream: true` drops a character the cap cut in two instead of showing U+FFFD.
      const text = new TextDecoder('utf-8').decode(head.subarray(0, maxBytes), { stream: truncated });
      return { file, text, bytes: Math.max(opened.stat.size, head.length), truncated, maxBytes };
    } catch {
      continue;
    } finally {
      opened.close();
    }
  }
  return undefined;
}

/** Up to `limit` bytes from the start of the opened file. */
function readHead(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const n = fs.readSync(fd, buffer, filled, limit - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buffer.subarray(0, filled);
}

/** The prompt's workspace section: where the workspace is, then its instructions when it has any. */
export function renderWorkspaceSection(cwd: string, instructions: WorkspaceInstructions | undefined): string {
  const where = `## Workspace\n\nThe workspace is ${cwd} on ${process.platform}. Relative paths are resolved against it.`;
  if (instructions === undefined || instructions.text.trim() === '') return where;
  const { file } = instructions;
  const cut = instructions.truncated
    ? `\n\n[${file} was cut at ${instructions.maxBytes} of its ${instructions.bytes} bytes; read the file for the rest.]`
    : '';
  return (
    `${where}\n\n### Instructions from ${file}\n\n` +
    `The workspace's ${file} says how to work here. Follow it unless the user's task says otherwise.\n\n` +
    `${instructions.text.trim()}${cut}`
  );
}
