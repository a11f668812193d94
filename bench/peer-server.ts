// One code-mode peer in a process of its own (docs/benchmarks.md, "The peer table"): started by
// bench/peer-process.ts with the Node binary the peer needs, it loads the peer's module, then answers
// one NDJSON request per line on stdin with one line on fd 3 (stdout is the libraries' own: UTCP's
// client logs there). A run's time is taken here, around
// the peer's own `run()`, so the bench's pipe to this process is not part of it.
//
//   <node> --import ./scripts/ts-register.mjs bench/peer-server.ts <module path> <export name>

import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Peer } from './peers.js';

interface Request {
  readonly id: number;
  readonly op: 'run' | 'close';
  readonly program?: string;
}

const [modulePath, exportName] = process.argv.slice(2);
if (modulePath === undefined || exportName === undefined) {
  process.stderr.write('usage: peer-server.ts <module path> <export name>\n');
  process.exit(2);
}

const loaded = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
const factory = loaded[exportName];
if (typeof factory !== 'function') throw new Error(`${modulePath} has no function export ${exportName}`);
const peer = (await (factory as () => Peer | Promise<Peer>)()) as Peer;

// fd 3 is this process's end of a socket pair, left blocking: one write(2) per reply.
const reply = (line: object) => void writeSync(3, JSON.stringify(line) + '\n');
reply({ id: 0, ready: true, name: peer.name, isolating: peer.isolating });

// One request at a time, in order: the bench awaits each run before it sends the next.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line) as Request;
  queue = queue.then(async () => {
    if (request.op === 'close') {
      await peer.close();
      reply({ id: request.id, ok: true });
      process.exit(0);
    }
    const start = performance.now();
    try {
      const value = await peer.run(request.program ?? '');
      reply({ id: request.id, ok: true, value, ms: performance.now() - start });
    } catch (error) {
      reply({ id: request.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
});
