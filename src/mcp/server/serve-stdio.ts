// `ptc mcp serve`: assembles the harness, opens the same ptc scope `ptc exec` runs programs in, and
// serves it over stdin/stdout until stdin closes (or the signal aborts); then it disposes the harness,
// which ends the runtime's children. docs/mcp-server.md.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createHarness, type HarnessOptions } from '../../harness.js';
import { MAX_MCP_SERVER_MESSAGE_BYTES } from './limits.js';
import { createCodeModeServer } from './code-mode-server.js';
import { guardStdout } from './stdout-guard.js';

export interface ServeMcpStdioOptions {
  readonly harness: HarnessOptions;
  /** The server version announced in `initialize`. */
  readonly version: string;
  /** Stops serving (SIGINT/SIGTERM in the CLI). */
  readonly signal?: AbortSignal;
  /** Where diagnostics go (never stdout); default: stderr. */
  readonly log?: (line: string) => void;
}

/** Serves until the client closes stdin; rejects only when the harness cannot assemble (CONFIG). */
export async function serveMcpStdio(options: ServeMcpStdioOptions): Promise<void> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  // On before the harness assembles: plugins run their apply() then.
  const guard = guardStdout();
  try {
    const harness = await createHarness(options.harness);
    try {
      const scope = await harness.ptcScope();
      const server = createCodeModeServer({ scope, presetName: harness.preset.name, version: options.version });
      const transport = new StdioServerTransport(process.stdin, guard.protocol, { maxBufferSize: MAX_MCP_SERVER_MESSAGE_BYTES });
      const closed = new Promise<void>((resolve) => {
        server.onclose = resolve;
      });
      // A message the SDK cannot parse is the client's problem, reported where a user can see it.
      server.onerror = (error) => log(`ptc mcp serve: ${error.message}`);
      const stop = () => void server.close();
      // The SDK's stdio transport does not watch for the end of its input; a client closes us that way.
      process.stdin.once('end', stop);
      process.stdin.once('close', stop);
      options.signal?.addEventListener('abort', stop, { once: true });
      try {
        await server.connect(transport);
        if (options.signal?.aborted) stop();
        await closed;
      } finally {
        process.stdin.off('end', stop);
        process.stdin.off('close', stop);
        options.signal?.removeEventListener('abort', stop);
      }
    } finally {
      await harness.dispose();
    }
  } finally {
    guard.restore();
  }
}
