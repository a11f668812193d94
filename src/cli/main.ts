#!/usr/bin/env node
// The `ptc` command. Thin: it parses flags and calls the library. Exit codes (README, "CLI"):
// 0 success, 1 the program or agent failed, 2 usage or configuration error — never a stack trace
// for a user error.
//
// Startup cost (bench/cli-start.ts, issue 27; docs/benchmarks.md, "CLI start-up"): the package's
// bin is this file bundled into one CommonJS file, dist/cli/ptc.cjs (scripts/bundle-bin.mjs), with
// start.ts and the little it imports; Node loads that faster than this ES module and its imports.
// Both run the same code. commander and the named command's own module (src/cli/command-table.ts)
// load only when a command runs; adding a command: a row in command-table.ts and a file in commands/.

import { startCli } from './start.js';

// No top-level await: a CommonJS bundle cannot have one.
void startCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
