// The `read` tool: a slice of a text file, numbered like `cat -n`. Also home of the text-file
// loader that `edit` shares, so both refuse the same files for the same reasons.

import { ToolFailedError } from '../errors.js';
import {
  BINARY_SNIFF_BYTES,
  DEFAULT_READ_LIMIT_LINES,
  MAX_LINE_CHARS,
  MAX_READ_FILE_BYTES,
  MAX_TOOL_OUTPUT_CHARS,
} from './limits.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { contractSchemas, type ArgsOf, type ValueOf } from './builtin-contract.js';
import { describeFsError, looksBinary } from './fs-errors.js';
import { createPathResolver, type FileToolOptions, type OpenedPath } from './path-resolver.js';
import { readRootsOf } from './read-roots.js';
import { readAllFd } from './safe-fs.js';

type Contract = typeof import('./contracts/read.js');
export type ReadArgs = ArgsOf<Contract>;
export type ReadOutput = ValueOf<Contract>;

const MIB = 1024 * 1024;

export const READ_DESCRIPTION =
  `Read a text file. Shows its lines numbered like \`cat -n\` (line number, tab, text; lines longer ` +
  `than ${MAX_LINE_CHARS} characters shortened); the value's \`content\` holds the raw text of those lines. ` +
  `Returns at most ${DEFAULT_READ_LIMIT_LINES} lines from \`offset\`; when more remain, the result says ` +
  `which offset to continue with. Directories, binary files and files over ${MAX_READ_FILE_BYTES / MIB} MiB ` +
  `are refused: use glob or grep for those.`;

export function createReadTool(options: FileToolOptions): ToolDefinition<ReadArgs, ReadOutput> {
  const resolver = createPathResolver(options);
  return defineTool<ReadArgs, ReadOutput>({
    name: 'read',
    description: READ_DESCRIPTION,
    ...contractSchemas('read', () => import('./contracts/read.js')),
    isConcurrencySafe: true,
    async execute(args, exec) {
      // The session's spill directory is readable whatever the policy (docs/sessions.md, "Spill"), and
      // so are the loaded skills' folders (docs/skills.md, "Files beside a skill").
      const extraReadRoots = [...(exec.spill ? [exec.spill.dir] : []), ...readRootsOf(options.policy)];
      const file = resolver.resolve(args.path, 'read', extraReadRoots.length > 0 ? { extraReadRoots } : {});
      let text: string;
      try {
        ({ text } = await loadTextFile(file, 'read'));
      } finally {
        file.close();
      }
      return numberLines(file.display, splitLines(text), args.offset ?? 1, args.limit ?? DEFAULT_READ_LIMIT_LINES);
    },
    renderContent(value) {
      if (value.totalLines === 0) return `(${value.path} is empty)`;
      const numbered = value.endLine < value.startLine ? '' : numberedView(value.content, value.startLine);
      if (!value.truncated) return numbered;
      return (
        `${numbered}\n\n[Lines ${value.startLine}-${value.endLine} of ${value.totalLines}. ` +
        `Call read with offset ${value.endLine + 1} to continue.]`
      );
    },
  });
}

function numberLines(shown: string, lines: readonly string[], offset: number, limit: number): ReadOutput {
  const total = lines.length;
  if (offset > Math.max(total, 1)) {
    throw new ToolFailedError(
      `offset ${offset} is beyond the end of ${shown}, which has ${total} line${total === 1 ? '' : 's'}. ` +
        `Use an offset from 1 to ${Math.max(total, 1)}.`,
    );
  }
  const last = Math.min(total, offset - 1 + limit);
  const out: string[] = [];
  let chars = 0;
  let end = offset - 1;
  for (let n = offset; n <= last; n++) {
    const line = lines[n - 1] ?? '';
    const shown = numberedLine(n, line).length;
    // Keep what the model sees within the output budget; the continuation note covers the rest.
    if (out.length > 0 && chars + shown + 1 > MAX_TOOL_OUTPUT_CHARS) break;
    out.push(line);
    chars += shown + 1;
    end = n;
  }
  return {
    path: shown,
    content: out.join('\n'),
    startLine: offset,
    endLine: end,
    totalLines: total,
    truncated: end < total,
  };
}

function numberedLine(n: number, line: string): string {
  return `${String(n).padStart(6)}\t${shortenLine(line)}`;
}

function numberedView(content: string, startLine: number): string {
  return content
    .split('\n')
    .map((line, i) => numberedLine(startLine + i, line))
    .join('\n');
}

/** Cuts a line to MAX_LINE_CHARS with a marker saying how much was dropped. */
export function shortenLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)} [… ${line.length - MAX_LINE_CHARS} more characters cut]`;
}

/** Lines of a text without their terminators; a final newline does not start an extra line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

export interface TextFile {
  readonly text: string;
  /** False when the bytes were not valid UTF-8 and `text` holds replacement characters. */
  readonly validUtf8: boolean;
}

/**
 * Loads a file the policy accepted (through its opened descriptor) as text, refusing what cannot
 * sensibly be shown or edited: a missing path, a directory, a device or pipe, a file over
 * MAX_READ_FILE_BYTES, binary content. The caller closes `file`.
 */
export async function loadTextFile(file: OpenedPath, tool: 'read' | 'edit'): Promise<TextFile> {
  const missingHint = tool === 'edit' ? 'Use write to create a new file, or glob to find the right path.' : 'Use glob to find the right path.';
  if (file.fd === undefined || file.stat === undefined) throw new ToolFailedError(`${file.display} does not exist. ${missingHint}`);
  const stat = file.stat;
  if (stat.isDirectory()) {
    throw new ToolFailedError(
      `${file.display} is a directory, not a file. Use glob with path "${file.display}" to list its files.`,
    );
  }
  if (!stat.isFile()) throw new ToolFailedError(`${file.display} is not a regular file (a device, socket or pipe).`);
  const tooBig = (size: number): ToolFailedError =>
    new ToolFailedError(
      `${file.display} is ${size} bytes, over the ${MAX_READ_FILE_BYTES}-byte limit of ${tool}. ` +
        `Use grep to find the lines you need.`,
    );
  if (stat.size > MAX_READ_FILE_BYTES) throw tooBig(stat.size);
  let bytes: Buffer | undefined;
  try {
    bytes = await readAllFd(file.fd, MAX_READ_FILE_BYTES, stat.size);
  } catch (error) {
    throw describeFsError(error, file.display, tool);
  }
  if (bytes === undefined) throw tooBig(MAX_READ_FILE_BYTES + 1);
  if (looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) {
    throw new ToolFailedError(`${file.display} is a binary file (it contains NUL bytes); ${tool} only handles text.`);
  }
  return decodeText(bytes);
}

function decodeText(bytes: Uint8Array): TextFile {
  // ignoreBOM keeps a byte-order mark in the text, so an edit writes it back unchanged.
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), validUtf8: true };
  } catch {
    return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes), validUtf8: false };
  }
}
