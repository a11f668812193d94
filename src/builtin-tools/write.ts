// The `write` tool: create or replace a whole file, atomically, creating parent directories.

import * as fs from 'node:fs/promises';
import path from 'node:path';

import { ToolFailedError } from '../errors.js';
import type { JsonSchema } from '../json.js';
import { defineTool, type ToolDefinition } from '../tools/types.js';
import { writeFileAtomic } from './atomic-write.js';
import { createWorkspacePolicy, describeFsError, type FileToolOptions } from './workspace-policy.js';

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
  const policy = createWorkspacePolicy(options);
  return defineTool<WriteArgs, WriteOutput>({
    name: 'write',
    description: WRITE_DESCRIPTION,
    inputSchema: WRITE_INPUT_SCHEMA,
    outputSchema: WRITE_OUTPUT_SCHEMA,
    async execute(args) {
      const file = await policy.resolve(args.path, 'write');
      const data = Buffer.from(args.content, 'utf8');
      try {
        if (file.exists && (await fs.stat(file.real)).isDirectory()) {
          throw new ToolFailedError(`${file.display} is a directory; write needs a file path inside it.`);
        }
        await fs.mkdir(path.dirname(file.real), { recursive: true });
        const { created } = await writeFileAtomic(file.real, data);
        return { path: file.display, bytes: data.byteLength, created };
      } catch (error) {
        throw describeFsError(error, file.display, 'write');
      }
    },
    renderContent(value) {
      return `${value.created ? 'Created' : 'Replaced'} ${value.path} (${value.bytes} bytes).`;
    },
  });
}
