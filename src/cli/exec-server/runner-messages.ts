// The messages between the exec server and its runners, over Node's IPC channel with the
// `advanced` serialization (bytes travel as bytes). docs/exec-server.md, "Runners".

/** Server to runner: one command line to run, with the client's directory and environment. */
export interface ServerMessage {
  readonly type: 'run';
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** The client relays stdin (into the runner's own stdin pipe); otherwise it is closed. */
  readonly stdin: boolean;
}

/** Runner to server: ready for a command line; bytes the run wrote; the run's end. */
export type RunnerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'out'; readonly fd: 1 | 2; readonly data: Uint8Array }
  | { readonly type: 'exit'; readonly code: number; readonly retire?: string };
