// Over stdio, stdout IS the protocol: one stray `console.log` from a plugin would corrupt it. While
// the server runs, every other writer of process.stdout is sent to stderr, and the transport gets
// its own stream onto the real stdout.

import { Writable } from 'node:stream';

export interface StdoutGuard {
  /** The only writer of the real stdout while the guard is on. */
  readonly protocol: Writable;
  /** Gives process.stdout back its own write. */
  restore(): void;
}

export function guardStdout(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WriteStream = process.stderr): StdoutGuard {
  const realWrite = stdout.write;
  const writeReal = realWrite.bind(stdout) as (chunk: Buffer, callback: (error?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeReal(chunk, (error) => callback(error ?? null));
    },
  });
  // console.* looks `write` up on the stream at each call, so this also moves the console.
  stdout.write = stderr.write.bind(stderr) as typeof stdout.write;
  return {
    protocol,
    restore() {
      stdout.write = realWrite;
    },
  };
}
