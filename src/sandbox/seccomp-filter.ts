// The seccomp filter handed to bwrap (`--seccomp FD`): a classic-BPF program assembled here, so no
// compiler or libseccomp is needed at run time. Four independent rules (docs/sandbox.md):
// - no spawn: deny every way to create a process (fork, vfork, clone without CLONE_THREAD, clone3)
//   and keep threads, which Node needs for its worker pool and for `new Worker`;
// - no unix sockets: `socket(AF_UNIX, ...)` fails with EACCES, so a host service listening on a
//   socket file inside a bound path is unreachable while the network is denied (socketpair stays:
//   Node needs it for child stdio);
// - truthful exit codes: a process calling exit/exit_group with a status whose low byte is 129 or
//   more is killed (SIGSYS), so bwrap's "128 + N" exit code can only mean a real signal N;
// - no asynchronous I/O: io_setup, io_submit and io_uring_setup/enter/register fail with ENOSYS (libuv
//   and libc fall back to plain syscalls), so every write a process makes ends inside a system call
//   of one of its own threads; settlement relies on that (docs/runtime-lifecycle.md, "Settling");
// - no user namespaces (asked for by the persistent bash only): clone and unshare with CLONE_NEWUSER
//   fail with EPERM (clone3 with ENOSYS), so a process cannot gain capabilities over its own files
//   in a nested namespace and list the shell's unlistable directory (docs/minimal-tools.md).

/** One classic-BPF instruction (`struct sock_filter`). */
export interface BpfInstruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

/** Bytes per encoded instruction: u16 code, u8 jt, u8 jf, u32 k, little-endian. */
export const BPF_INSTRUCTION_BYTES = 8;

export const BPF_LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
export const BPF_JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
export const BPF_JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
export const BPF_JSET_K = 0x45; // BPF_JMP | BPF_JSET | BPF_K
export const BPF_RET_K = 0x06; // BPF_RET | BPF_K
export const BPF_ALU_AND_K = 0x54; // BPF_ALU | BPF_AND | BPF_K

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;

/** Offsets into `struct seccomp_data`. args[0] is a u64; on little-endian its low word comes first. */
export const SECCOMP_DATA_NR_OFFSET = 0;
export const SECCOMP_DATA_ARCH_OFFSET = 4;
export const SECCOMP_DATA_ARG0_LOW_OFFSET = 16;

export const AUDIT_ARCH_X86_64 = 0xc000003e;
/** Syscall numbers at or above this bit are the x32 ABI on an x86_64 kernel: a second door to every syscall. */
export const X32_SYSCALL_BIT = 0x40000000;
export const X86_64_SYSCALLS = {
  socket: 41,
  clone: 56,
  unshare: 272,
  fork: 57,
  vfork: 58,
  exit: 60,
  io_setup: 206,
  io_submit: 209,
  exit_group: 231,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  clone3: 435,
} as const;
export const CLONE_THREAD = 0x00010000;
export const CLONE_NEWUSER = 0x10000000;
export const AF_UNIX = 1;
/** The lowest exit status that bwrap also reports for a child killed by a signal (128 + SIGHUP). */
export const FIRST_SIGNAL_EXIT_STATUS = 129;
export const EPERM = 1;
export const EACCES = 13;
/** clone3 answers ENOSYS, not EPERM, so libc falls back to clone, where the flags can be inspected. */
export const ENOSYS = 38;

type Target = string;
type Step =
  | { op: 'load'; offset: number; label?: Target }
  | { op: 'and'; k: number; label?: Target }
  | { op: 'jump'; code: number; k: number; ifTrue: Target | null; ifFalse: Target | null; label?: Target }
  | { op: 'ret'; k: number; label: Target };

/** Which rules a filter carries; a filter with no rule is never built (bwrap then gets none). */
export interface SeccompRules {
  /** Deny fork, vfork, clone without CLONE_THREAD (EPERM) and clone3 (ENOSYS); threads stay. */
  readonly denySpawn: boolean;
  /** Deny `socket(AF_UNIX, ...)` with EACCES; `socketpair` stays. */
  readonly denyUnixSockets: boolean;
  /** Kill a process that exits with a status in bwrap's signal range (low byte >= 129). */
  readonly killSignalExitCodes: boolean;
  /** Deny kernel AIO and io_uring (ENOSYS): no write can outlive the system call that made it. */
  readonly denyAsyncIo: boolean;
  /** Deny clone and unshare with CLONE_NEWUSER (EPERM) and clone3 (ENOSYS); off when absent. */
  readonly denyUserNamespaces?: boolean;
}

/** True when at least one rule is on. */
export function hasSeccompRules(rules: SeccompRules): boolean {
  return rules.denySpawn || rules.denyUnixSockets || rules.killSignalExitCodes || rules.denyAsyncIo || rules.denyUserNamespaces === true;
}

/**
 * The filter for `rules` on an architecture, or `undefined` when none is defined for it (then the
 * caller must not promise what the rules would enforce). Only x86_64 is supported.
 */
export function buildSandboxFilter(rules: SeccompRules, arch: string = process.arch): BpfInstruction[] | undefined {
  if (arch !== 'x64') return undefined;
  const nr = X86_64_SYSCALLS;
  const dispatch: Step[] = [];
  const checks: Step[] = [];
  if (rules.denySpawn) {
    dispatch.push(
      { op: 'jump', code: BPF_JEQ_K, k: nr.clone3, ifTrue: 'enosys', ifFalse: null },
      { op: 'jump', code: BPF_JEQ_K, k: nr.fork, ifTrue: 'eperm', ifFalse: null },
      { op: 'jump', code: BPF_JEQ_K, k: nr.vfork, ifTrue: 'eperm', ifFalse: null },
      { op: 'jump', code: BPF_JEQ_K, k: nr.clone, ifTrue: 'clone', ifFalse: null },
    );
    checks.push(
      { op: 'load', offset: SECCOMP_DATA_ARG0_LOW_OFFSET, label: 'clone' },
      { op: 'jump', code: BPF_JSET_K, k: CLONE_THREAD, ifTrue: 'allow', ifFalse: 'eperm' },
    );
  }
  if (rules.denyUserNamespaces === true) {
    // With denySpawn, clone3 is denied and clone without CLONE_THREAD already fails above.
    if (!rules.denySpawn) {
      dispatch.push(
        { op: 'jump', code: BPF_JEQ_K, k: nr.clone3, ifTrue: 'enosys', ifFalse: null },
        { op: 'jump', code: BPF_JEQ_K, k: nr.clone, ifTrue: 'newuser', ifFalse: null },
      );
    }
    dispatch.push({ op: 'jump', code: BPF_JEQ_K, k: nr.unshare, ifTrue: 'newuser', ifFalse: null });
    checks.push(
      { op: 'load', offset: SECCOMP_DATA_ARG0_LOW_OFFSET, label: 'newuser' },
      { op: 'jump', code: BPF_JSET_K, k: CLONE_NEWUSER, ifTrue: 'eperm', ifFalse: 'allow' },
    );
  }
  if (rules.denyUnixSockets) {
    dispatch.push({ op: 'jump', code: BPF_JEQ_K, k: nr.socket, ifTrue: 'socket', ifFalse: null });
    checks.push(
      { op: 'load', offset: SECCOMP_DATA_ARG0_LOW_OFFSET, label: 'socket' },
      { op: 'jump', code: BPF_JEQ_K, k: AF_UNIX, ifTrue: 'eacces', ifFalse: 'allow' },
    );
  }
  if (rules.denyAsyncIo) {
    for (const call of [nr.io_setup, nr.io_submit, nr.io_uring_setup, nr.io_uring_enter, nr.io_uring_register]) {
      dispatch.push({ op: 'jump', code: BPF_JEQ_K, k: call, ifTrue: 'enosys', ifFalse: null });
    }
  }
  if (rules.killSignalExitCodes) {
    dispatch.push(
      { op: 'jump', code: BPF_JEQ_K, k: nr.exit_group, ifTrue: 'exit', ifFalse: null },
      { op: 'jump', code: BPF_JEQ_K, k: nr.exit, ifTrue: 'exit', ifFalse: null },
    );
    // The kernel keeps only the low byte of the status: exit(390) is status 134.
    checks.push(
      { op: 'load', offset: SECCOMP_DATA_ARG0_LOW_OFFSET, label: 'exit' },
      { op: 'and', k: 0xff },
      { op: 'jump', code: BPF_JGE_K, k: FIRST_SIGNAL_EXIT_STATUS, ifTrue: 'kill', ifFalse: 'allow' },
    );
  }
  return assemble([
    { op: 'load', offset: SECCOMP_DATA_ARCH_OFFSET },
    { op: 'jump', code: BPF_JEQ_K, k: AUDIT_ARCH_X86_64, ifTrue: null, ifFalse: 'kill' },
    { op: 'load', offset: SECCOMP_DATA_NR_OFFSET },
    { op: 'jump', code: BPF_JGE_K, k: X32_SYSCALL_BIT, ifTrue: 'kill', ifFalse: null },
    ...dispatch,
    // Every other syscall; the argument checks below jump forward to their own `allow`.
    { op: 'ret', k: SECCOMP_RET_ALLOW, label: 'pass' },
    ...checks,
    { op: 'ret', k: SECCOMP_RET_ALLOW, label: 'allow' },
    { op: 'ret', k: (SECCOMP_RET_ERRNO | EPERM) >>> 0, label: 'eperm' },
    { op: 'ret', k: (SECCOMP_RET_ERRNO | ENOSYS) >>> 0, label: 'enosys' },
    { op: 'ret', k: (SECCOMP_RET_ERRNO | EACCES) >>> 0, label: 'eacces' },
    { op: 'ret', k: SECCOMP_RET_KILL_PROCESS, label: 'kill' },
  ]);
}

/** The filter that only denies spawning (the rules before unix sockets and exit codes were added). */
export function buildNoSpawnFilter(arch: string = process.arch): BpfInstruction[] | undefined {
  return buildSandboxFilter({ denySpawn: true, denyUnixSockets: false, killSignalExitCodes: false, denyAsyncIo: false }, arch);
}

/** Encodes a program as the kernel reads it (`struct sock_filter[]`, little-endian). */
export function encodeFilter(program: readonly BpfInstruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * BPF_INSTRUCTION_BYTES);
  program.forEach((ins, i) => {
    const at = i * BPF_INSTRUCTION_BYTES;
    bytes.writeUInt16LE(ins.code, at);
    bytes.writeUInt8(ins.jt, at + 2);
    bytes.writeUInt8(ins.jf, at + 3);
    bytes.writeUInt32LE(ins.k >>> 0, at + 4);
  });
  return bytes;
}

/** The inverse of {@link encodeFilter}; throws on a length that is not a whole number of instructions. */
export function decodeFilter(bytes: Uint8Array): BpfInstruction[] {
  if (bytes.length % BPF_INSTRUCTION_BYTES !== 0) {
    throw new Error(`seccomp filter length ${bytes.length} is not a multiple of ${BPF_INSTRUCTION_BYTES}.`);
  }
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: BpfInstruction[] = [];
  for (let at = 0; at < view.length; at += BPF_INSTRUCTION_BYTES) {
    out.push({ code: view.readUInt16LE(at), jt: view.readUInt8(at + 2), jf: view.readUInt8(at + 3), k: view.readUInt32LE(at + 4) });
  }
  return out;
}

// Jumps name their targets; offsets are counted from the next instruction and must fit a u8
// (classic BPF only jumps forward). `null` means fall through to the next instruction.
function assemble(steps: readonly Step[]): BpfInstruction[] {
  const labels = new Map<Target, number>();
  steps.forEach((step, index) => {
    if (step.label !== undefined) {
      if (labels.has(step.label)) throw new Error(`BPF label "${step.label}" is defined twice.`);
      labels.set(step.label, index);
    }
  });
  const offset = (from: number, target: Target | null): number => {
    if (target === null) return 0;
    const to = labels.get(target);
    if (to === undefined) throw new Error(`BPF label "${target}" is not defined.`);
    const distance = to - from - 1;
    if (distance < 0 || distance > 255) throw new Error(`BPF jump to "${target}" out of range.`);
    return distance;
  };
  return steps.map((step, index): BpfInstruction => {
    switch (step.op) {
      case 'load':
        return { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: step.offset };
      case 'and':
        return { code: BPF_ALU_AND_K, jt: 0, jf: 0, k: step.k >>> 0 };
      case 'jump':
        return { code: step.code, jt: offset(index, step.ifTrue), jf: offset(index, step.ifFalse), k: step.k >>> 0 };
      case 'ret':
        return { code: BPF_RET_K, jt: 0, jf: 0, k: step.k >>> 0 };
    }
  });
}
