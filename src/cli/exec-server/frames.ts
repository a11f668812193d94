// The exec server's wire format (docs/exec-server.md, "The wire"): frames of one kind byte, a
// 32-bit big-endian length and that many bytes, both ways over the unix socket. Its own file with
// no imports beyond node:, so the client stays small.

/**
 * Client to server: the request (JSON), stdin bytes, the end of stdin. Server to client: accepted
 * (the command runs; stdin may follow), stdout and stderr bytes, the exit (JSON `{ code }`), or a
 * refusal before anything ran (JSON `{ reason }`).
 */
export type FrameKind = 'request' | 'stdin' | 'stdin-end' | 'accepted' | 'stdout' | 'stderr' | 'exit' | 'declined';

const CODES: Readonly<Record<FrameKind, number>> = {
  request: 0x52,
  stdin: 0x49,
  'stdin-end': 0x5a,
  accepted: 0x41,
  stdout: 0x4f,
  stderr: 0x45,
  exit: 0x58,
  declined: 0x44,
};
const KINDS = new Map<number, FrameKind>(Object.entries(CODES).map(([kind, code]) => [code, kind as FrameKind]));
const HEADER_BYTES = 5;

/** A frame is at most this long: a request carries a command line and an environment, not files. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface Frame {
  readonly kind: FrameKind;
  readonly body: Buffer;
}

/** What a client sends first. */
export interface ExecRequest {
  readonly token: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** buildStamp() of the client's build: a server of another build declines. */
  readonly stamp: string;
  readonly node: string;
  /** Whether stdin frames follow (the command line reads a program from `-`). */
  readonly stdin: boolean;
}

/** `env` without its unset entries: the environment as a request carries it. */
export function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The entries of `env` sorted by name, without the `ignored` ones: what environment keys are made of. */
export function sortedEnvEntries(env: Readonly<Record<string, string>>, ignored: ReadonlySet<string> = new Set()): [string, string][] {
  return Object.entries(env)
    .filter(([key]) => !ignored.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function encodeFrame(kind: FrameKind, body: Buffer | string): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header[0] = CODES[kind];
  header.writeUInt32BE(bytes.length, 1);
  return Buffer.concat([header, bytes]);
}

/** Splits a byte stream into frames; a bad kind or an oversized length is a protocol error. */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0);

  /** The frames completed by `chunk`, in order. Throws on a malformed stream. */
  push(chunk: Buffer): Frame[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const frames: Frame[] = [];
    while (this.#pending.length >= HEADER_BYTES) {
      const kind = KINDS.get(this.#pending[0] as number);
      const length = this.#pending.readUInt32BE(1);
      if (kind === undefined || length > MAX_FRAME_BYTES) throw new Error('exec server: malformed frame');
      if (this.#pending.length < HEADER_BYTES + length) break;
      frames.push({ kind, body: this.#pending.subarray(HEADER_BYTES, HEADER_BYTES + length) });
      this.#pending = this.#pending.subarray(HEADER_BYTES + length);
    }
    return frames;
  }
}
