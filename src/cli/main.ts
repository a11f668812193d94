#!/usr/bin/env node
// The `ptc` command. Thin: it parses flags and calls the library. Exit codes (README, "CLI"):
// 0 success, 1 the program or agent failed, 2 usage or configuration error — never a stack trace
// for a user error.
//
// Startup cost (bench/cli-start.ts, issue 27; docs/benchmarks.md, "CLI start-up"): this entry
// imports nothing but the dependency-free error classes. commander and the named command's own
// module (src/cli/command-table.ts) load through program.ts; each action imports what its command
// needs when it runs. Adding a command: a row in command-table.ts and a file in commands/.
//
// `ptc exec` first asks this user's exec server, when one runs for this build (docs/exec-server.md):
// it runs the same command line in a process that loaded everything beforehand. No server, or one
// that declines, and the command runs here as always.

import { exitQuietlyOnClosedStdout, runCli } from './run-cli.js';

exitQuietlyOnClosedStdout();
const argv = process.argv.slice(2);
const served = argv[0] === 'exec' ? await (await import('./exec-server/client.js')).execOnServer(argv) : undefined;
process.exitCode = served ?? (await runCli(argv));
