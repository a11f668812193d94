// Where an exec server lives and how its directory is checked (docs/exec-server.md, "Where it
// lives"). One directory per build under the host-only root `/tmp/ptc-exec-<uid>`, which every
// sandbox hides (src/sandbox/host-only.ts): `<root>/<name>/sock` (the unix socket), `token` (the
// secret a client sends first, mode 0600) and `pid`. The name is a hash of the build's directory,
// so two checkouts each get their own server; `PTC_EXEC_SERVER_NAME` picks another (tests).
// Imports only node: modules and the dependency-free error classes: the client runs this on every
// `ptc exec`.

import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { execServerRoot } from '../../sandbox/host-only.js';
import { CLI_DIR } from '../fast-start.js';
import { fnv1a64 } from '../fnv1a.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ServerPaths {
  readonly root: string;
  readonly dir: string;
  readonly socket: string;
  readonly token: string;
  readonly pid: string;
}

const NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
const uid = typeof process.getuid === 'function' ? process.getuid() : -1;

/** The paths of this build's server; undefined when PTC_EXEC_SERVER_NAME is not a plain name. */
export function serverPaths(env: Env = process.env): ServerPaths | undefined {
  const named = env['PTC_EXEC_SERVER_NAME'];
  if (named !== undefined && !NAME_PATTERN.test(named)) return undefined;
  // A digest that only separates checkouts: two that collided would share a directory, and the
  // server declines (and stops for) a client of another build.
  const name = named ?? fnv1a64(CLI_DIR);
  const root = execServerRoot();
  const dir = path.join(root, name);
  return { root, dir, socket: path.join(dir, 'sock'), token: path.join(dir, 'token'), pid: path.join(dir, 'pid') };
}

/** serverPaths(), or CONFIG naming the fix when PTC_EXEC_SERVER_NAME is not a plain name (the server and its command). */
export function serverPathsOrThrow(env: Env = process.env): ServerPaths {
  const paths = serverPaths(env);
  if (paths === undefined) throw new ConfigError("PTC_EXEC_SERVER_NAME must be lower-case letters, digits and dashes (at most 40); unset it to use the build's own server.");
  return paths;
}

/** Makes the root and the server's directory (mode 0700) when missing; CONFIG with the fix when either is not private. */
export function ensureServerDirs(paths: ServerPaths): void {
  for (const dir of [paths.root, paths.dir]) {
    const problem = ensurePrivateDir(dir);
    if (problem !== undefined) throw new ConfigError(`the exec server's directory is not private: ${problem}. Remove it (it holds nothing but exec servers' sockets) and start again.`);
  }
}

/** Why `dir` is not a private directory of this user (a real directory, ours, mode 0700), or undefined. */
export function privateDirProblem(dir: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return `${dir} does not exist`;
  }
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (uid >= 0 && stat.uid !== uid) return `${dir} belongs to uid ${stat.uid}, not to this user (${uid})`;
  if ((stat.mode & 0o777) !== 0o700) return `${dir} has mode ${(stat.mode & 0o777).toString(8)}, not 700`;
  return undefined;
}

/** Makes `dir` (mode 0700) when missing and checks it; returns the problem when it is not private. */
export function ensurePrivateDir(dir: string): string | undefined {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return `${dir} cannot be made: ${(error as Error).message}`;
  }
  return privateDirProblem(dir);
}

/**
 * The token of a running server, read only from a private root and directory and a regular file of
 * ours with mode 0600; undefined otherwise (the client then runs the command itself).
 */
export function readToken(paths: ServerPaths): string | undefined {
  if (privateDirProblem(paths.root) !== undefined || privateDirProblem(paths.dir) !== undefined) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(paths.token, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || (uid >= 0 && stat.uid !== uid) || (stat.mode & 0o777) !== 0o600 || stat.size > 256) return undefined;
    const text = fs.readFileSync(fd, 'utf8').trim();
    return text.length > 0 ? text : undefined;
  } finally {
    fs.closeSync(fd);
  }
}
