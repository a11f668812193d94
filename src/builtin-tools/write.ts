// The `write` tool: create or replace a whole file, atomically, creating parent directories.

import { ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { writeFileAtomicAt } from './atomic-write.js';
import { reportFileChange, textBefore, wantsFileChanges } from './file-change.js';
import { describeFsError } from './fs-errors.js';
import { createPathResolver, type FileToolOptions } from './path-resolver.js';
import { resolveForWrite } from './protected-write.js';

export interface WriteArgs {
  path: string;
  content: string;
}

export type WriteOutput = {
  path: string;
  bytes: number;
  created: boolean;
};

export const WRITE_DESCRIPTION =
  'Write a whole file: create it (and any missing parent directories) or replace its contents. ' +
  'The write is atomic and keeps an existing file\'s permissions. To change part of a file, use edit.';

export const WRITE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, description: 'File to write, relative to the workspace or absolute.' },
    content: { type: 'string', description: 'The complete new contents of the file (UTF-8).' },
  },
  required: ['path', 'content'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const WRITE_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'The file, relative to the workspace when inside it.' },
    bytes: { type: 'integer', description: 'Bytes written (UTF-8).' },
    created: { type: 'boolean', description: 'True when the file did not exist before.' },
  },
  required: ['path', 'bytes', 'created'],
  additionalProperties: false,
} as const satisfies JsonSchema;

export function createWriteTool(options: FileToolOptions): ToolDefinition<WriteArgs, WriteOutput> {
  const resolver = createPathResolver(options);
  return defineTool<WriteArgs, WriteOutput>({
    name: 'write',
    description: WRITE_DESCRIPTION,
    inputSchema: WRITE_INPUT_SCHEMA,
    outputSchema: WRITE_OUTPUT_SCHEMA,
    async execute(args, exec) {
      const data = Buffer.from(args.content, 'utf8');
      const file = await resolveForWrite(resolver, args.path, { tool: 'write', args: { ...args }, exec }, { createParents: true });
      try {
        if (file.stat?.isDirectory() === true || file.parentFd === undefined || file.name === undefined) {
          throw new ToolFailedError(`${file.display} is a directory; write needs a file path inside it.`);
        }
        const before = wantsFileChanges(exec) ? await textBefore(file) : undefined;
        const { created } = await writeFileAtomicAt(file.parentFd, file.name, data, file.stat);
        reportFileChange(exec, file, created ? null : before, args.content);
        return { path: file.display, bytes: data.byteLength, created };
      } catch (error) {
        throw describeFsError(error, file.display, 'write');
      } finally {
        file.close();
      }
    },
    renderContent(value) {
      return `${value.created ? 'Created' : 'Replaced'} ${value.path} (${value.bytes} bytes).`;
    },
  });
}
