// The persistent shell's side of the marker protocol (docs/minimal-tools.md, "The marker protocol"):
// the fixed driver loop bash runs (given with -c), and what the host writes into a call's input pipe.
// The host's side, which makes the pipes and waits for both markers, is shell-session.ts.

import { randomBytes } from 'node:crypto';

/**
 * Ends a call: reads the nonce and the next input pipe's name, writes both markers, moves on.
 * Driver steps use `builtin`, so a function named like a builtin does not hijack them.
 */
const FINISH =
  '{ IFS= builtin read -r -d "" __ptc_nonce && IFS= builtin read -r -d "" __ptc_next; } <"$__ptc_in" || builtin exit 1; ' +
  'builtin printf "\\n%s %d\\n" "$__ptc_nonce" "$__ptc_status" >>"$__ptc_out"; ' +
  'builtin printf "\\n%s %d\\n" "$__ptc_nonce" "$__ptc_status" >>"$__ptc_err"; ' +
  '__ptc_in=$__ptc_next; __ptc_busy=; builtin unset __ptc_nonce __ptc_next __ptc_cmd';

/**
 * The shell's whole script. It first reads the first input pipe's name from stdin (which the host
 * then closes) and points stdin at /dev/null. Each turn reads and runs one command, then saves `$?`
 * and the flags (xtrace off, so no driver step shows in a call's output; turned back on inside the
 * next `eval` if the command left it on) and finishes the call. A `break` or `continue` in a command
 * lands at the top of the inner loop or in the outer one, where the pending call is finished with
 * status 0; only `break 2` or more leaves both loops and ends the shell.
 */
export const DRIVER_SCRIPT =
  'IFS= builtin read -r -d "" __ptc_in || builtin exit 1; builtin exec </dev/null; ' +
  'while :; do while :; do ' +
  `if [[ -n \${__ptc_busy-} ]]; then { __ptc_flags=$-; builtin set +x; } 2>/dev/null; __ptc_status=0; ${FINISH}; fi; ` +
  '{ IFS= builtin read -r -d "" __ptc_cmd && IFS= builtin read -r -d "" __ptc_out && IFS= builtin read -r -d "" __ptc_err; } <"$__ptc_in" || builtin exit 1; ' +
  'case "${__ptc_flags-}" in *x*) __ptc_cmd="builtin set -x; $__ptc_cmd";; esac; ' +
  '__ptc_busy=1; ' +
  'builtin eval "$__ptc_cmd" </dev/null >"$__ptc_out" 2>"$__ptc_err"; ' +
  `{ __ptc_status=$?; __ptc_flags=$-; builtin set +x; } 2>/dev/null; ${FINISH}; ` +
  'done; done; builtin exit 1';

/** A fresh nonce for one call's end markers: 128 random bits, so no program a command runs can guess it. */
export function callNonce(): string {
  return `__ptc_end_${randomBytes(16).toString('hex')}`;
}

/** One call as written into its input pipe: the command, its stdout and stderr pipes, its nonce, the next call's input pipe. */
export function callFrame(call: { command: string; outPath: string; errPath: string; nonce: string; nextPath: string }): string {
  return `${call.command}\0${call.outPath}\0${call.errPath}\0${call.nonce}\0${call.nextPath}\0`;
}
