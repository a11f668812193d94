// A command that runs at once (bash) is held until the launch's groups hold its process chain
// (docs/sandbox.md, "Memory", LaunchPlan.gated): a host slow to move bwrap into the groups, as a loaded
// one is, must not leave a process of the command, or one it double-forked, outside the memory limit.
// The control plans the same launch ungated and sees the processes outside.

import { readdirSync, readFileSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';

import { defaultSandboxEnv, memoryLimitSupport, planLaunch, type ConfinedProcess } from '../../src/sandbox/index.js';
import { setGroupMoveDelayForTests, spawnConfined } from '../../src/sandbox/spawn-confined.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

/** A double-forked orphan and the command itself, both asleep. */
const COMMAND = '( ( exec sleep 30 ) & ) ; exec sleep 30';
const DELAY_MS = 150;

function descendants(pid: number): number[] {
  const out: number[] = [];
  const visit = (parent: number): void => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let text = '';
      try {
        text = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of text.split(' ').filter(Boolean).map(Number)) {
        out.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return out;
}

async function start(gated: boolean): Promise<ConfinedProcess> {
  const cwd = process.cwd();
  const policy = { cwd, read: [], write: [], network: false, processes: true, env: defaultSandboxEnv(cwd) };
  const plan = await planLaunch({ kind: 'exec', command: 'bash', args: ['-c', COMMAND], policy, mode: 'required', firstFreeFd: 3, gated });
  return spawnConfined(plan, { stdio: ['ignore', 'ignore', 'ignore'], memoryLimitBytes: 256 << 20 });
}

/** The sleeping processes of the tree once both sleeps started, and the memory group's members. */
async function settle(confined: ConfinedProcess): Promise<{ sleeping: number[]; members: Set<number> }> {
  const group = confined.memoryGroup;
  const root = confined.pid as number;
  for (let i = 0; i < 100; i++) {
    const sleeping = descendants(root).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep';
      } catch {
        return false;
      }
    });
    if (sleeping.length >= 2) return { sleeping, members: new Set(group?.members() ?? []) };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the two sleeps did not start');
}

const skip = skipWithoutBwrap || memoryLimitSupport().root === undefined;

describe.skipIf(skip)('a gated launch under a slow host', () => {
  let running: ConfinedProcess | undefined;
  afterEach(async () => {
    setGroupMoveDelayForTests(0);
    running?.killTree();
    await running?.waitGone();
    running = undefined;
  });

  it('holds the command until every process is in the memory group (control: ungated, they are outside)', async () => {
    setGroupMoveDelayForTests(DELAY_MS);
    running = await start(true);
    const gated = await settle(running);
    expect(gated.sleeping.every((pid) => gated.members.has(pid))).toBe(true);
    running.killTree();
    await running.waitGone();

    running = await start(false);
    const ungated = await settle(running);
    expect(ungated.sleeping.some((pid) => !ungated.members.has(pid))).toBe(true);
  });
});
