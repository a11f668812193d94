// Everything a stream of a child process writes, as text, once it ends (rejects on a stream error).

import type { Readable } from 'node:stream';

export function readAll(stream: Readable | null | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => (text += chunk));
    stream?.on('end', () => resolve(text));
    stream?.on('error', reject);
    stream?.resume();
  });
}
