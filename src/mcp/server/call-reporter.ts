// Reports a run_code call's sub-calls to the MCP client while the program runs: as
// `notifications/progress` when the request carried a progress token, else as logging messages
// (which the client's `logging/setLevel` filters). docs/mcp-server.md.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PtcDispatchSettle, PtcDispatchStart } from '../../ptc/run-code.js';

/** The logger name of the logging notifications. */
export const MCP_LOGGER_NAME = 'run_code';

export interface CallReporter {
  readonly started: (event: PtcDispatchStart) => void;
  readonly settled: (event: PtcDispatchSettle) => void;
  /** Resolves once every notification of the call has been handed to the transport. */
  flush(): Promise<void>;
}

export function createCallReporter(server: Server, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): CallReporter {
  const token = extra._meta?.progressToken;
  let progress = 0;
  // One chain keeps notifications in event order; a failed send (client gone) must not fail the call.
  let chain: Promise<void> = Promise.resolve();
  const send = (task: () => Promise<void>) => {
    chain = chain.then(task).catch(() => {});
  };

  const report = (message: string, data: Readonly<Record<string, unknown>>, isError: boolean) => {
    progress += 1;
    if (token !== undefined) {
      const params = { progressToken: token, progress, message };
      send(() => extra.sendNotification({ method: 'notifications/progress', params }));
    } else {
      const params = { level: isError ? ('warning' as const) : ('info' as const), logger: MCP_LOGGER_NAME, data: { message, ...data } };
      send(() => server.sendLoggingMessage(params, extra.sessionId));
    }
  };

  return {
    started: (event) => report(`${event.id} ${event.tool} started`, { id: event.id, tool: event.tool, phase: 'start' }, false),
    settled: (event) =>
      report(
        `${event.id} ${event.tool} ${event.isError ? 'failed' : 'done'}`,
        { id: event.id, tool: event.tool, phase: 'end', isError: event.isError },
        event.isError,
      ),
    flush: () => chain,
  };
}
