// Children booting for the pool wait while warm runs go on (docs/runtime-lifecycle.md, "The pool"):
// the policy of BootPause over stand-in children, and the stop and continue of a real launched tree,
// each of its processes read from /proc.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { BOOT_PAUSE_MAX_MS, BootPause, type PausableChild } from '../../src/ptc-runtime-process/boot-pause.js';
import { defaultSandboxEnv, launch, type ConfinedProcess } from '../../src/sandbox/index.js';
import { processChain } from '../../src/sandbox/proc-tree.js';
import { cannotRunCode, statFields } from '../helpers/process-state.js';
import { waitUntil } from '../helpers/wait-until.js';

class StandIn implements PausableChild {
  booting = true;
  paused = false;
  pauseBoot(): boolean {
    if (!this.booting || this.paused) return false;
    this.paused = true;
    return true;
  }
  resumeBoot(): void {
    this.paused = false;
  }
}

describe('BootPause', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pauses the booting children but the taken one while warm runs go on, and resumes them when the last ends', () => {
    const taken = new StandIn();
    const a = new StandIn();
    const b = new StandIn();
    const ready = new StandIn();
    ready.booting = false;
    const pause = new BootPause(() => [taken, a, b, ready]);
    const endFirst = pause.begin(taken);
    expect([taken.paused, a.paused, b.paused, ready.paused]).toEqual([false, true, true, false]);
    const endSecond = pause.begin(new StandIn());
    endFirst();
    endFirst();
    expect([a.paused, b.paused]).toEqual([true, true]);
    endSecond();
    expect([a.paused, b.paused]).toEqual([false, false]);
  });

  it('lets a run that takes a paused child boot it at once', () => {
    const a = new StandIn();
    const b = new StandIn();
    const pause = new BootPause(() => [a, b]);
    const end = pause.begin(new StandIn());
    pause.release(a);
    expect([a.paused, b.paused]).toEqual([false, true]);
    end();
    expect(b.paused).toBe(false);
  });

  it('holds a boot back for at most BOOT_PAUSE_MAX_MS, however long the run', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const a = new StandIn();
    const pause = new BootPause(() => [a]);
    const end = pause.begin(new StandIn());
    vi.advanceTimersByTime(BOOT_PAUSE_MAX_MS - 1);
    expect(a.paused).toBe(true);
    expect(pause.holding).toBe(true);
    vi.advanceTimersByTime(1);
    expect(a.paused).toBe(false);
    // New boots may start beside the long run from now on.
    expect(pause.holding).toBe(false);
    end();
    expect(a.paused).toBe(false);
    expect(pause.holding).toBe(false);
    // The next warm run holds again, for its own BOOT_PAUSE_MAX_MS.
    const next = pause.begin(new StandIn());
    expect(pause.holding).toBe(true);
    next();
  });

  it('holds new boots while a warm run goes on, even with no child booting to pause', () => {
    const pause = new BootPause<StandIn>(() => []);
    expect(pause.holding).toBe(false);
    const end = pause.begin(new StandIn());
    expect(pause.holding).toBe(true);
    end();
    expect(pause.holding).toBe(false);
  });
});

describe('a launched tree paused and continued', () => {
  let confined: ConfinedProcess | undefined;

  afterEach(async () => {
    confined?.killTree();
    await confined?.waitGone();
    confined = undefined;
  });

  it('stops every process of the chain, continues them, and a paused tree still dies on the kill', async () => {
    const cwd = process.cwd();
    const started = await launch({
      command: { kind: 'node', command: process.execPath, args: ['-e', 'setInterval(() => {}, 5)'] },
      policy: { cwd, read: [], write: [], network: false, processes: false, env: defaultSandboxEnv(cwd) },
      mode: 'auto',
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const launched = started.process;
    const plan = started.report;
    confined = launched;
    const pid = launched.pid as number;
    // Under bwrap: the monitor, the namespace's init and node; elsewhere node alone.
    const depth = plan.backend === 'bwrap' ? 3 : 1;
    await waitUntil(`the chain below ${pid} to reach its program`, () => processChain(pid).length >= depth);
    const chain = processChain(pid);

    expect(launched.pause()).toBe(true);
    await waitUntil('every process of the chain stopped', () => chain.every((member) => statFields(member)?.[0] === 'T'));
    expect(launched.pause()).toBe(false);

    launched.resume();
    await waitUntil('every process of the chain running again', () => chain.every((member) => statFields(member)?.[0] !== 'T'));

    expect(launched.pause()).toBe(true);
    await waitUntil('the chain stopped again', () => chain.every((member) => statFields(member)?.[0] === 'T'));
    launched.killTree();
    await launched.settled();
    // settled() speaks for the processes that can run the program's code: under bwrap, those in the
    // namespace. bwrap's monitor, outside it and running none, got its SIGKILL at killTree() and may
    // still be on its way out (docs/runtime-lifecycle.md, "Settling").
    const [monitor, ...namespace] = plan.backend === 'bwrap' ? chain : [undefined, ...chain];
    for (const member of namespace) expect(cannotRunCode(member as number)).toBe(true);
    if (monitor !== undefined) await waitUntil('bwrap\'s monitor gone', () => cannotRunCode(monitor));
  });
});
