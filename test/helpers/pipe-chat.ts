// `ptc chat` in-process over pipes: the input is written line by line, stderr (progress, goal lines,
// the status line) is collected and waited on. For tests of what the chat does rather than how the
// terminal shows it (those use tmux-terminal.ts).

import { PassThrough } from 'node:stream';
import { runChat, type ChatOptions } from '../../src/chat/run-chat.js';
import { waitUntil } from './wait-until.js';

export interface PipeChat {
  readonly input: PassThrough;
  /** runChat's exit code. */
  readonly done: Promise<number>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Waits until stderr matches `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
}

/** A bound on waiting for the chat's output, not a timing claim. */
const STDERR_WAIT_MS = 60_000;

export function startPipeChat(options: Omit<ChatOptions, 'input' | 'output' | 'errorOutput'>): PipeChat {
  const input = new PassThrough();
  const errors: string[] = [];
  const errorOutput = new PassThrough();
  errorOutput.on('data', (d: Buffer) => errors.push(d.toString()));
  const output = new PassThrough();
  output.resume();
  const done = runChat({ ...options, input, output, errorOutput });
  const stderr = () => errors.join('');
  return { input, done, stderr, waitFor: (pattern) => waitUntil(`${pattern} on stderr`, () => pattern.test(stderr()), STDERR_WAIT_MS) };
}
