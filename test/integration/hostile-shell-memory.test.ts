// A shell command that takes the host's memory (docs/minimal-tools.md, "Memory"): the one-shot `bash`
// and the persistent one hold a command's whole process tree to a memory limit, as a run_code
// program's is held. Each attack allocates 400 MiB of touched pages (bytes that are really resident),
// in the command itself, in a background process it left behind, and in a double-forked orphan;
// with a 96 MiB limit each is killed and the result says so. The controls run the same command with
// the default limit (4 GiB), which lets it through, so the detector is seen to be the limit.

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { createBashTool, renderBash } from '../../src/builtin-tools/bash.js';
import { createPersistentBashTool, renderPersistentBash } from '../../src/builtin-tools/persistent-bash.js';
import { memoryLimitSupport, resolveWorkspacePolicy } from '../../src/sandbox/index.js';
import type { SandboxMode } from '../../src/sandbox/types.js';
import type { ToolExecContext } from '../../src/tools/types.js';
import { skipWithoutBwrap } from '../helpers/bwrap.js';

const skipBwrap = skipWithoutBwrap;
const ws = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-shell-mem-')));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const LIMIT_MB = 96;
/** 400 MiB of resident bytes (a repeated bytes object is written, unlike a calloc'd bytearray), then a word. */
const HOG = `python3 -c "x = b'x' * (400 << 20); import time; time.sleep(0.3); print('survived')"`;
const ATTACKS: Record<string, string> = {
  'the command itself': HOG,
  'a background job the command waits for': `(${HOG}) & wait`,
  'a double-forked orphan': `( ( ${HOG} > out.txt ) & ) ; sleep 2; cat out.txt 2>/dev/null; true`,
};

function exec(): ToolExecContext {
  return { signal: new AbortController().signal, callId: 't1', deferContext() {} };
}

function tools(sandbox: SandboxMode, memoryLimitMb?: number) {
  const policy = resolveWorkspacePolicy({ cwd: ws });
  const options = { policy, sandbox, ...(memoryLimitMb === undefined ? {} : { memoryLimitMb }) };
  return { bash: createBashTool(options), persistent: createPersistentBashTool(options) };
}

const modes: Array<{ sandbox: SandboxMode; label: string; skip: boolean }> = [
  { sandbox: 'required', label: `under bwrap (${memoryLimitSupport().root === undefined ? 'tree-rss' : 'cgroup-v1'})`, skip: skipBwrap },
  { sandbox: 'off', label: 'with the sandbox off (tree-rss)', skip: false },
];

for (const { sandbox, label, skip } of modes) {
  describe.skipIf(skip)(`a shell command over the memory limit, ${label}`, () => {
    // Without a pid namespace a double-forked orphan leaves the tree before a sample can find it
    // (docs/minimal-tools.md, "Memory", what it does not cover).
    for (const [name, command] of Object.entries(ATTACKS).filter(([n]) => sandbox !== 'off' || n !== 'a double-forked orphan')) {
      it(`one-shot bash: ${name} is killed and the result says so (control: the default limit lets it through)`, async () => {
        const limited = await tools(sandbox, LIMIT_MB).bash.execute({ command }, exec());
        expect(limited.memoryLimited).toBe(true);
        expect(limited.stdout).not.toContain('survived');
        const text = renderBash(limited, undefined, LIMIT_MB);
        expect(text).toContain(`memory limit of ${LIMIT_MB} MiB`);

        const control = await tools(sandbox).bash.execute({ command }, exec());
        expect(control.memoryLimited).toBeUndefined();
        expect(control.stdout).toContain('survived');
      });

      it(`persistent bash: ${name} is killed and the result says so (control: the default limit lets it through)`, async () => {
        const { persistent } = tools(sandbox, LIMIT_MB);
        const { persistent: control } = tools(sandbox);
        try {
          const limited = await persistent.execute({ command }, exec());
          expect(limited.memoryLimited).toBe(true);
          expect(limited.stdout).not.toContain('survived');
          expect(renderPersistentBash(limited, undefined, LIMIT_MB)).toContain(`memory limit of ${LIMIT_MB} MiB`);
          // The shell (or a fresh one) still takes the next command, and that one is not blamed.
          const next = await persistent.execute({ command: 'echo next' }, exec());
          expect(next.stdout).toBe('next\n');
          expect(next.memoryLimited).toBeUndefined();

          const allowed = await control.execute({ command }, exec());
          expect(allowed.memoryLimited).toBeUndefined();
          expect(allowed.stdout).toContain('survived');
        } finally {
          await persistent.dispose();
          await control.dispose();
        }
      });
    }
  });
}

describe('the shells\' memory limit option', () => {
  it('rejects a limit below the minimum with CONFIG naming the option', () => {
    const policy = resolveWorkspacePolicy({ cwd: ws });
    expect(() => createBashTool({ policy, sandbox: 'off', memoryLimitMb: 1 })).toThrow(/memoryLimitMb must be an integer of at least 16/);
  });
});
