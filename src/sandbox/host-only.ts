// Host-only directories (docs/exec-server.md, "What a program can reach"): places no sandboxed
// process may see at all, not even read. Today one: the root of the exec servers' sockets and
// tokens, `/tmp/ptc-exec-<uid>`. A client that can talk to an exec server can ask it to run any
// program under any policy, so a program that reached one would leave its sandbox.
//
// The path depends on the uid only, never on the environment: every host process (a chat, a
// server, a one-shot exec) must hide the same directory whatever TMPDIR or XDG_RUNTIME_DIR it was
// given. Its own file, free of imports beyond node:, so the CLI's exec client can use it before
// anything else loads.

import path from 'node:path';

const uid = typeof process.getuid === 'function' ? process.getuid() : -1;

/** `/tmp/ptc-exec-<uid>`: the exec servers' root (one subdirectory per server). */
export function execServerRoot(): string {
  return path.join('/tmp', `ptc-exec-${uid}`);
}

/** Every directory a sandbox hides (bwrap) or refuses to expose (node-permission). */
export function hostOnlyDirs(): readonly string[] {
  return [execServerRoot()];
}
