// `ptc acp`: serves the ACP agent on stdin/stdout (newline-delimited JSON-RPC) until the editor
// closes stdin or the signal aborts; then every session's harness is disposed. Stdout is the
// protocol, so it is guarded like `ptc mcp serve` does (stray writes go to stderr).

import { Readable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

import { guardStdout } from '../mcp/server/stdout-guard.js';
import { createAcpAgent, type AcpAgentOptions } from './acp-agent.js';

export interface ServeAcpStdioOptions extends AcpAgentOptions {
  readonly signal?: AbortSignal;
}

export async function serveAcpStdio(options: ServeAcpStdioOptions): Promise<void> {
  const guard = guardStdout();
  const agent = createAcpAgent(options);
  try {
    const output = new WritableStream<Uint8Array>({
      write: (chunk) =>
        new Promise<void>((resolve, reject) => {
          guard.protocol.write(chunk, (error) => (error ? reject(error) : resolve()));
        }),
    });
    const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
    const connection = agent.app.connect(acp.ndJsonStream(output, input));
    const stop = () => connection.close();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      await connection.closed;
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
  } finally {
    await agent.close();
    guard.restore();
  }
}
