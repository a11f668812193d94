// Approvals that cover programs (docs/approvals.md, "Programs"; docs/security.md): under
// `--approve writes|all` a run_code program cannot change the workspace behind the approvals (its
// sandbox mounts the workspace read-only, for node:fs and child processes alike; where no sandbox
// can, the run itself asks), a subagent runs under its parent's approvals, and a wait for approval
// never lets a program run past its deadline. Real harness, real sandboxed runtime, real temp dirs;
// the person answering is scripted. Each attack has a control (`never`, no approvals) that gets through.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installApprovals, type ApprovalAnswer, type ApprovalOptions, type ApprovalRequest } from '../../src/approvals/approvals.js';
import { createHarness, type Harness, type HarnessOptions } from '../../src/harness.js';
import { listSessionFiles, readSession } from '../../src/session/index.js';
import { reply, startScriptedOpenAIServer, type ScriptedServer } from '../fixtures/scripted-openai-server.js';
import { delegateTurn } from '../helpers/delegate.js';
import { overrideSandboxProbe } from '../../src/sandbox/index.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

let workspace: string;
let sessionDir: string;
let server: ScriptedServer | undefined;
const harnesses: Harness[] = [];

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-cover-ws-')));
  sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-cover-log-'));
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'original\n');
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.dispose();
  await server?.close();
  server = undefined;
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
});

async function open(options: HarnessOptions = {}): Promise<Harness> {
  const harness = await createHarness({ cwd: workspace, preset: 'standard', sandbox: 'required', runtimePool: { size: 1, refill: false }, ...options });
  harnesses.push(harness);
  return harness;
}

/** A person who answers by tool name (default: deny) and remembers what was asked. */
function person(byTool: Record<string, ApprovalAnswer> = {}) {
  const asked: ApprovalRequest[] = [];
  const approver = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(request);
    return byTool[request.tool] ?? { decision: 'deny', reason: 'not scripted' };
  };
  return { asked, approver };
}

/** Runs `code` as a program under `approvals` (none when undefined); returns the call's result. */
async function program(harness: Harness, code: string, approvals?: ApprovalOptions, timeoutMs?: number) {
  const scope = await harness.ptcScope();
  const remove = approvals === undefined ? undefined : installApprovals(harness.ctx, approvals);
  try {
    return await harness.tools.execute('run_code', { code, description: 'cover', ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, { scope, id: 'p1' });
  } finally {
    await remove?.();
  }
}

/** Writes, overwrites and deletes workspace files with node:fs and with a shell child, and uses /tmp. */
const CHANGES = `
const fs = await import('node:fs');
const { execFileSync } = await import('node:child_process');
const out = {};
const attempt = (name, fn) => { try { fn(); out[name] = 'ok'; } catch (e) { out[name] = e.code ?? 'failed'; } };
attempt('create', () => fs.writeFileSync('new.txt', 'new'));
attempt('overwrite', () => fs.writeFileSync('keep.txt', 'overwritten'));
attempt('delete', () => fs.unlinkSync('keep.txt'));
attempt('mkdir', () => fs.mkdirSync('made'));
attempt('child', () => execFileSync('/bin/sh', ['-c', 'echo child > child.txt; rm -f keep.txt'], { stdio: 'pipe' }));
attempt('tmp', () => { fs.writeFileSync('/tmp/scratch', 'scratch'); if (fs.readFileSync('/tmp/scratch', 'utf8') !== 'scratch') throw new Error('lost'); });
return out;`;

const untouched = (): void => {
  expect(fs.readdirSync(workspace).sort()).toEqual(['keep.txt']);
  expect(fs.readFileSync(path.join(workspace, 'keep.txt'), 'utf8')).toBe('original\n');
};

describe.skipIf(skipWithoutBwrap)('a program under --approve writes|all (bwrap)', () => {
  for (const policy of ['writes', 'all'] as const) {
    it(`under ${policy} it cannot create, overwrite or delete workspace files, with node:fs or a child process; /tmp stays writable`, async () => {
      const harness = await open();
      const { asked, approver } = person();
      const result = await program(harness, CHANGES, { policy, approver });
      expect(result.isError).toBe(false);
      expect(JSON.parse(result.content)).toEqual({ create: 'EROFS', overwrite: 'EROFS', delete: 'EROFS', mkdir: 'EROFS', child: 'failed', tmp: 'ok' });
      untouched();
      // The sandbox held, so the run itself did not ask.
      expect(asked).toEqual([]);
    });
  }

  it('control: under never, and with no approvals at all, the same program changes the workspace', async () => {
    const harness = await open();
    const result = await program(harness, CHANGES, { policy: 'never' });
    expect(JSON.parse(result.content)).toMatchObject({ create: 'ok', overwrite: 'ok', delete: 'ok', mkdir: 'ok', child: 'ok', tmp: 'ok' });
    expect(fs.readFileSync(path.join(workspace, 'child.txt'), 'utf8')).toBe('child\n');
    fs.rmSync(path.join(workspace, 'child.txt'));
    fs.writeFileSync(path.join(workspace, 'keep.txt'), 'original\n');
    const bare = await program(harness, "(await import('node:fs')).writeFileSync('keep.txt', 'bare'); return 'wrote';");
    expect(bare.content).toContain('wrote');
    expect(fs.readFileSync(path.join(workspace, 'keep.txt'), 'utf8')).toBe('bare');
  });

  it('its changes go through the asking tools: a tools.write sub-call asks and lands when allowed', async () => {
    const harness = await open();
    const { asked, approver } = person({ write: { decision: 'allow' } });
    const code = `
const fs = await import('node:fs');
let direct;
try { fs.writeFileSync('direct.txt', 'd'); direct = 'ok'; } catch (e) { direct = e.code; }
await tools.write({ path: 'via-tool.txt', content: 'asked' });
return direct;`;
    const result = await program(harness, code, { policy: 'writes', approver });
    expect(result.content).toContain('EROFS');
    expect(fs.existsSync(path.join(workspace, 'direct.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, 'via-tool.txt'), 'utf8')).toBe('asked');
    expect(asked.map((r) => [r.id, r.tool])).toEqual([['p1:ptc:1', 'write']]);
  });
});

describe('a Node program under node-permission (bwrap unusable)', () => {
  afterEach(() => overrideSandboxProbe(undefined));

  it('under writes the workspace is left out of its write permissions; control: under never it writes', async () => {
    overrideSandboxProbe({ seccomp: false, detail: 'forced by a test' });
    const harness = await open({ sandbox: 'auto' });
    const { asked, approver } = person();
    const code = "try { (await import('node:fs')).writeFileSync('new.txt', 'n'); return 'wrote'; } catch (e) { return e.code; }";
    const held = await program(harness, code, { policy: 'writes', approver });
    expect(held.content).toContain('ERR_ACCESS_DENIED');
    expect(asked).toEqual([]);
    untouched();
    const free = await program(harness, code, { policy: 'never' });
    expect(free.content).toContain('wrote');
  });
});

describe('a program where no sandbox can hold the workspace read-only (sandbox off)', () => {
  it('the run asks once, showing the program; a no means it never runs', async () => {
    const harness = await open({ sandbox: 'off' });
    const { asked, approver } = person();
    const result = await program(harness, CHANGES, { policy: 'writes', approver });
    expect(result).toMatchObject({ isError: true, error: { code: 'PERMISSION_DENIED' } });
    expect(result.content).toMatch(/did not run: denied by the user/);
    untouched();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ id: 'p1', tool: 'run_code', args: { code: CHANGES, description: 'cover' } });
    expect(asked[0]!.why).toMatch(/no sandbox/);
  });

  it('a yes runs it as it is (the person saw the program); control: under never it runs without asking', async () => {
    const harness = await open({ sandbox: 'off' });
    const allowing = person({ run_code: { decision: 'allow' } });
    const allowed = await program(harness, "(await import('node:fs')).writeFileSync('new.txt', 'yes'); return 'ran';", { policy: 'writes', approver: allowing.approver });
    expect(allowed.content).toContain('ran');
    expect(allowing.asked.map((r) => r.tool)).toEqual(['run_code']);
    const silent = person();
    const never = await program(harness, "(await import('node:fs')).writeFileSync('never.txt', 'n'); return 'ran';", { policy: 'never', approver: silent.approver });
    expect(never.content).toContain('ran');
    expect(silent.asked).toEqual([]);
    expect(fs.readFileSync(path.join(workspace, 'never.txt'), 'utf8')).toBe('n');
  });
});

describe('a subagent runs under its parent approvals', () => {
  async function delegate(approvals: ApprovalOptions) {
    server = await startScriptedOpenAIServer([
      reply.toolCalls([{ id: 't1', name: 'task', args: { description: 'write', prompt: 'Write child.txt.', preset: 'standard' } }]),
      reply.toolCalls([{ id: 'c1', name: 'write', args: { path: 'child.txt', content: 'from the child' } }]),
      reply.text('Child done.'),
      reply.text('Parent done.'),
    ]);
    const harness = await open({ sandbox: 'auto' });
    const remove = installApprovals(harness.ctx, approvals);
    let parent: string;
    try {
      parent = (await delegateTurn({ scope: harness.ctx, cwd: workspace, baseUrl: server.baseUrl, sessionDir })).sessionId;
    } finally {
      await remove();
    }
    const child = listSessionFiles(sessionDir).find((s) => s.id !== parent);
    return child === undefined ? [] : readSession(child.file).events;
  }

  it("approving the task call does not approve the subagent's writes: they ask the same person", async () => {
    const { asked, approver } = person({ task: { decision: 'allow' }, write: { decision: 'deny', reason: 'not from the child' } });
    const childEvents = await delegate({ policy: 'writes', approver });
    expect(fs.existsSync(path.join(workspace, 'child.txt'))).toBe(false);
    expect(asked.map((r) => [r.id, r.tool])).toContainEqual(['c1', 'write']);
    expect(childEvents.filter((e) => e.type === 'tool/approval')).toMatchObject([
      { stage: 'request', id: 'c1', tool: 'write' },
      { stage: 'answer', id: 'c1', decision: 'deny', by: 'person' },
    ]);
  });

  it('control: under never the subagent writes', async () => {
    await delegate({ policy: 'never' });
    expect(fs.readFileSync(path.join(workspace, 'child.txt'), 'utf8')).toBe('from the child');
  });
});

describe('a wait for approval counts against the program deadline', () => {
  it('a program that keeps working while one call waits longer than its deadline is stopped at the deadline', async () => {
    const harness = await open({ sandbox: 'auto' });
    let started = 0;
    harness.ctx.on('tool/ptc-dispatch-start', () => void started++);
    let startedWhenWaitEnded = -1;
    let waitAborted = false;
    // A person who takes 4 s, far past the program's 1 s deadline, unless the wait is given up first.
    const approver = (_request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> =>
      new Promise((resolve) => {
        const done = (): void => {
          startedWhenWaitEnded = started;
          resolve({ decision: 'allow' });
        };
        const timer = setTimeout(done, 4_000);
        signal.addEventListener('abort', () => {
          waitAborted = true;
          clearTimeout(timer);
          done();
        });
      });
    // The write waits; the rest of the program keeps making (non-asking) sub-calls and logging.
    const code = `
const waiting = tools.write({ path: 'late.txt', content: 'late' }).catch(() => 'refused');
for (let n = 1; ; n++) {
  await tools.glob({ pattern: '*' });
  console.log('tick ' + n);
  await new Promise((r) => setTimeout(r, 50));
}`;
    const result = await program(harness, code, { policy: 'writes', approver }, 1_000);
    expect(result).toMatchObject({ isError: true, error: { code: 'TIMEOUT' } });
    // The deadline ended the wait (the person had not answered) ...
    expect(waitAborted).toBe(true);
    // ... and no sub-call of the program started after that.
    expect(started).toBe(startedWhenWaitEnded);
    expect(fs.existsSync(path.join(workspace, 'late.txt'))).toBe(false);
  });
});
