// Cloudflare's code mode as a bench peer (docs/benchmarks.md, "The peer table"): the library's own
// `DynamicWorkerExecutor`, running in a host Worker on workerd (driven by miniflare, as it runs
// outside Cloudflare). Per run the executor loads a fresh Worker through the Worker Loader binding,
// with the program normalised into an async arrow function and `globalOutbound: null`; a tool call
// goes back to the host Worker over Workers RPC (a ToolDispatcher with the tool name and JSON text).
// The one tool, `tools.echo`, is answered by the host Worker. The bench asks the host Worker for each
// run with one HTTP request (miniflare's `dispatchFetch`), which is how a Node program drives
// workerd; that hop is part of the per-run figure. Runs on Node >= 22 (miniflare 4), in a process of
// its own (bench/peer-server.ts).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Peer } from '../peers.js';

/** The part of miniflare's API the peer uses (imported at run time: installed apart, bench/peers/package.json). */
interface MiniflareInstance {
  readonly ready: Promise<unknown>;
  dispatchFetch(url: string, init: { method: string; body: string }): Promise<{ text(): Promise<string> }>;
  dispose(): Promise<void>;
}
interface MiniflareModule {
  readonly Miniflare: new (options: object) => MiniflareInstance;
}
const MINIFLARE = 'miniflare';

const PEERS_DIR = dirname(fileURLToPath(import.meta.url));
const CODEMODE_DIST = join(PEERS_DIR, 'node_modules', '@cloudflare', 'codemode', 'dist');
const ACORN = join(PEERS_DIR, 'node_modules', 'acorn', 'dist', 'acorn.mjs');

/** The host Worker: one request per run, the program in the body, the executor's outcome as JSON. */
const HOST_WORKER = `
import { DynamicWorkerExecutor } from './node_modules/@cloudflare/codemode/dist/index.js';
const providers = [{ name: 'tools', fns: { echo: async (x) => x } }];
export default {
  async fetch(request, env) {
    const executor = new DynamicWorkerExecutor({ loader: env.LOADER, timeout: 120000 });
    const outcome = await executor.execute(await request.text(), providers);
    return Response.json(outcome);
  },
};
`;

export async function cloudflarePeer(): Promise<Peer> {
  const { Miniflare } = (await import(MINIFLARE)) as MiniflareModule;
  const modules = [
    { type: 'ESModule', path: join(PEERS_DIR, 'host.mjs'), contents: HOST_WORKER },
    // The library's own files; workerd resolves its one bare import, `acorn`, beside the importer.
    ...readdirSync(CODEMODE_DIST)
      .filter((name) => name.endsWith('.js'))
      .map((name) => ({ type: 'ESModule', path: join(CODEMODE_DIST, name), contents: readFileSync(join(CODEMODE_DIST, name), 'utf8') })),
    { type: 'ESModule', path: join(CODEMODE_DIST, 'acorn'), contents: readFileSync(ACORN, 'utf8') },
  ];
  const mf = new Miniflare({
    modules,
    modulesRoot: PEERS_DIR,
    compatibilityDate: '2025-06-01',
    compatibilityFlags: ['nodejs_compat'],
    workerLoaders: { LOADER: {} },
  });
  await mf.ready;
  return {
    name: 'Cloudflare code mode (workerd)',
    isolating: true,
    run: async (program) => {
      const response = await mf.dispatchFetch('http://peer.local/run', { method: 'POST', body: program });
      const outcome = JSON.parse(await response.text()) as { result?: unknown; error?: string };
      if (outcome.error !== undefined) throw new Error(`Cloudflare code mode: ${outcome.error}`);
      return outcome.result;
    },
    close: () => mf.dispose(),
  };
}
