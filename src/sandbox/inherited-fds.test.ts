// coverInheritedFds against real inherited descriptors: a child host started with sockets dup2()ed
// to fd 40 and fd 60 (so without close-on-exec), which reports what it finds and what its own
// children get. Shows the libuv behaviour the module relies on: an 'ignore' entry at fd 3 or above
// leaves the inherited fd in the child (docs/sandbox.md, "Inherited descriptors"). Low fds (3, 9)
// were found already close-on-exec in a Node child here, 40 and 60 were not: the test uses those.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_COVERED_INHERITED_FD } from './limits.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const register = pathToFileURL(join(root, 'scripts/ts-register.mjs')).href;
const moduleUrl = pathToFileURL(join(root, 'src/sandbox/inherited-fds.ts')).href;

/** Runs `body` in a host that inherited a socket at each of `fds`; returns its JSON answer. */
function hostWith(fds: readonly number[], body: string): unknown {
  const stdio: ('ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe'];
  for (const fd of fds) {
    while (stdio.length < fd) stdio.push('ignore');
    stdio[fd] = 'pipe';
  }
  const script = `const m = await import(${JSON.stringify(moduleUrl)});\nconst { spawnSync } = await import('node:child_process');\nconst { readlinkSync } = await import('node:fs');\n${body}`;
  const host = spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { stdio, encoding: 'utf8' });
  expect(host.status, String(host.stderr)).toBe(0);
  return JSON.parse(String(host.stdout)) as unknown;
}

/** What a grandchild spawned with `stdio` holds at `fd` (readlink of /proc/self/fd/<fd>, or null). */
const LOOK = (fd: number): string => `['-e', "try { process.stdout.write(require('fs').readlinkSync('/proc/self/fd/${fd}')) } catch { process.stdout.write('none') }"]`;

describe('coverInheritedFds', () => {
  it('finds the inherited fds, and puts /dev/null over them where libuv would pass them on', () => {
    const answer = hostWith(
      [40, 60],
      `const leaked = m.inheritableFds().filter((fd) => fd === 40 || fd === 60);
const target = (fd) => readlinkSync('/proc/self/fd/' + fd);
const look = (stdio, _fd, args) => spawnSync(process.execPath, args, { stdio, encoding: 'utf8' }).stdout;
const ignoreTo40 = ['ignore', 'pipe', ...Array(39).fill('ignore')];
const plainIgnore = look(ignoreTo40, 40, ${LOOK(40)});
const plainHigh = look(['ignore', 'pipe', 'ignore'], 60, ${LOOK(60)});
const coveredIgnore = look(m.coverInheritedFds(ignoreTo40), 40, ${LOOK(40)});
const coveredHigh = look(m.coverInheritedFds(['ignore', 'pipe', 'ignore']), 60, ${LOOK(60)});
process.stdout.write(JSON.stringify({ leaked, fd40: target(40), plainIgnore, plainHigh, coveredIgnore, coveredHigh }));`,
    ) as Record<string, string | number[]>;
    expect(answer['leaked']).toEqual([40, 60]);
    // Control: libuv's 'ignore' at fd 40, and an fd past the stdio array, pass the host's socket on.
    expect(answer['plainIgnore']).toBe(answer['fd40']);
    expect(answer['plainHigh']).toMatch(/^socket:/);
    expect(answer['coveredIgnore']).toBe('/dev/null');
    expect(answer['coveredHigh']).toBe('/dev/null');
  });

  it('refuses a spawn with SANDBOX_UNAVAILABLE for an inherited fd above the cap, saying how to fix it', () => {
    const high = MAX_COVERED_INHERITED_FD + 1;
    const answer = hostWith(
      [high],
      `try { m.coverInheritedFds(['pipe']); process.stdout.write(JSON.stringify({ ok: true })); } catch (error) { process.stdout.write(JSON.stringify({ code: error.code, message: error.message })); }`,
    ) as { code?: string; message?: string };
    expect(answer.code).toBe('SANDBOX_UNAVAILABLE');
    expect(answer.message).toContain(`descriptor ${high}`);
    expect(answer.message).toContain('start the host with that descriptor closed');
  });
});
