import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { skipWithoutBwrap } from '../../test/helpers/bwrap.js';
import { NamespaceProc } from './namespace-proc.js';
import { isDead, processChain, startTime } from './proc-tree.js';
import { probeSandbox } from './index.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid !== undefined) tryKill(-child.pid);
});

function tryKill(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // Gone.
  }
}

/** A bwrap'd shell with a pid namespace and its own /proc, ready once it printed; returns the chain. */
async function sandboxedShell(script: string): Promise<{ child: ChildProcess; chain: number[] }> {
  const { bwrapPath } = await probeSandbox();
  const child = spawn(
    bwrapPath as string,
    ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'sh', '-c', script],
    { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  started.push(child);
  await new Promise((resolve) => child.stdout?.once('data', resolve));
  return { child, chain: processChain(child.pid as number) };
}

describe.skipIf(skipWithoutBwrap)('NamespaceProc', () => {
  it('opens only the namespace whose pid 1 is the given init', async () => {
    const { chain } = await sandboxedShell('echo r; exec sleep 60');
    const init = chain[1] as number;
    const handle = NamespaceProc.open(init, startTime(init) as number);
    expect(handle).toBeDefined();
    handle?.close();
    // A wrong start time (a reused pid) and the host's own /proc are refused.
    expect(NamespaceProc.open(init, (startTime(init) as number) + 1)).toBeUndefined();
    expect(NamespaceProc.open(process.pid, startTime(process.pid) as number)).toBeUndefined();
    expect(NamespaceProc.open(2 ** 22 + 17, 0)).toBeUndefined();
  });

  it('is not quiescent while any process of the namespace runs, and is once all were killed, before init is reaped', async () => {
    // A background orphan that keeps running as well as the foreground sleep.
    const { child, chain } = await sandboxedShell('(while :; do :; done) & echo r; exec sleep 60');
    const init = chain[1] as number;
    const initStarted = startTime(init) as number;
    const handle = NamespaceProc.open(init, initStarted) as NamespaceProc;
    expect(handle.quiescent()).toBe(false);
    // Killing only the sleep leaves the busy orphan: still not quiescent.
    tryKill(chain[chain.length - 1] as number);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handle.quiescent()).toBe(false);
    // Killing init takes the whole namespace down.
    tryKill(-(child.pid as number));
    tryKill(init);
    const deadline = Date.now() + 5_000;
    let quiet = false;
    while (!quiet && !isDead(init, initStarted) && Date.now() < deadline) {
      quiet = handle.quiescent();
      if (!quiet) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // Either it saw the namespace quiescent first, or init died before a poll came (then nothing is listed).
    expect(quiet || handle.quiescent()).toBe(true);
    handle.close();
    expect(handle.quiescent()).toBe(false);
  });
});
