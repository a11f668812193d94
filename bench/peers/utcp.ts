// UTCP's code mode as a bench peer (docs/benchmarks.md, "The peer table"): the library's own
// `CodeModeUtcpClient.callToolChain`, which per run makes a fresh isolated-vm Isolate with a memory
// limit, a context, the console and tool bridges as ivm References (a tool call is a synchronous
// `applySyncPromise` with the tool name and JSON text), runs the program wrapped in an async function
// and disposes the isolate. The one tool, `tools.echo`, is answered by the host: the client's tool
// list and its `callTool` are replaced by the echo, so the SDK's protocol layer (an HTTP or CLI call
// template, a console line per call) is not measured, only the code mode. Runs on Node >= 24
// (isolated-vm 7), in a process of its own (bench/peer-server.ts).

import type { Peer } from '../peers.js';

/** The part of the library's API the peer uses (imported by name at run time: installed apart, bench/peers/package.json). */
interface CodeModeClient {
  callToolChain(code: string, timeout?: number, memoryLimit?: number): Promise<{ result: unknown; logs: string[] }>;
  close?(): Promise<void>;
}
interface CodeModeModule {
  readonly CodeModeUtcpClient: { create(rootDir?: string): Promise<CodeModeClient> };
}
const LIBRARY = '@utcp/code-mode';

const ECHO_TOOL = {
  name: 'tools.echo',
  description: 'Returns its argument.',
  inputs: { type: 'object', properties: {} },
  outputs: { type: 'object', properties: {} },
  tags: [],
  tool_call_template: { call_template_type: 'bench', name: 'tools' },
};

export async function utcpPeer(): Promise<Peer> {
  const { CodeModeUtcpClient } = (await import(LIBRARY)) as CodeModeModule;
  const client = await CodeModeUtcpClient.create(process.cwd());
  Object.assign(client, {
    getTools: async () => [ECHO_TOOL],
    callTool: async (_name: string, args: unknown) => args,
  });
  return {
    name: 'UTCP code mode (isolated-vm)',
    isolating: true,
    run: async (program) => {
      const { result, logs } = await client.callToolChain(program, 120_000, 128);
      const failure = logs.find((line) => line.startsWith('[ERROR] Code execution failed'));
      if (failure !== undefined) throw new Error(failure);
      return result;
    },
    close: async () => {
      await client.close?.();
    },
  };
}
