// Shared by the control channel's hostile suites (hostile-channel, channel-waits): a Node runtime of
// their own with a `tools` binding over the given functions, run in a temp workspace, and the
// program text a hostile program uses to write frames to fd 3 itself.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { BindingFunction, RunRequest, RunResult } from '../../src/ptc-runtime/index.js';
import { createNodeRuntime, type NodeRuntime } from '../../src/languages/typescript/runtime/index.js';

/** Program text defining send(line): writes all of it to fd 3 (non-blocking there, so writes may be partial). */
export const SEND = [
  'const fs = require("node:fs");',
  'function send(text) {',
  '  const bytes = Buffer.from(text + "\\n");',
  '  for (let at = 0; at < bytes.length; ) {',
  '    try { at += fs.writeSync(3, bytes, at); } catch (e) { if (e.code !== "EAGAIN") throw e; }',
  '  }',
  '}',
].join('\n');

export interface ChannelRuns {
  /** The runtime, once the suite's beforeAll ran. */
  readonly runtime: () => NodeRuntime;
  /** Runs `program` with the `tools` binding in the suite's workspace (30 s unless `request` says). */
  readonly attempt: (program: string, request?: Partial<RunRequest>) => Promise<RunResult>;
}

/** Registers the suite's runtime (a pool of `poolSize`) and workspace with beforeAll/afterAll. */
export function channelRuns(name: string, tools: Record<string, BindingFunction>, poolSize: number): ChannelRuns {
  const workspace = mkdtempSync(join(tmpdir(), `ptc-${name}-`));
  const functions = Object.assign(Object.create(null) as Record<string, BindingFunction>, tools);
  let rt: NodeRuntime | undefined;
  beforeAll(() => {
    rt = createNodeRuntime({ sandbox: 'auto', pool: { size: poolSize } });
  });
  afterAll(async () => {
    await rt?.close();
    rmSync(workspace, { recursive: true, force: true });
  });
  const runtime = (): NodeRuntime => {
    if (rt === undefined) throw new Error('the runtime is made in beforeAll');
    return rt;
  };
  return {
    runtime,
    attempt: async (program, request = {}) =>
      runtime().run(
        await runtime().resolve({
          program,
          cwd: workspace,
          timeoutMs: 30_000,
          bindings: [{ global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }],
          ...request,
        }),
      ),
  };
}
