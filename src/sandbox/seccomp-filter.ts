// The seccomp "no spawn" filter handed to bwrap (`--seccomp FD`) when a policy denies processes:
// a classic-BPF program assembled here, so no compiler or libseccomp is needed at run time. It denies
// every way to create a process (fork, vfork, clone without CLONE_THREAD, clone3) and keeps threads,
// which Node needs for its worker pool and for `new Worker`.

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
export const X86_64_SYSCALLS = { clone: 56, fork: 57, vfork: 58, clone3: 435 } as const;
export const CLONE_THREAD = 0x00010000;
export const EPERM = 1;
/** clone3 answers ENOSYS, not EPERM, so libc falls back to clone, where the flags can be inspected. */
export const ENOSYS = 38;

type Target = string;
type Step =
  | { op: 'load'; offset: number }
  | { op: 'jump'; code: number; k: number; ifTrue: Target | null; ifFalse: Target | null }
  | { op: 'ret'; k: number; label: Target };

/**
 * The no-spawn program for an architecture, or `undefined` when none is defined for it (then the
 * caller must not promise that spawning is denied). Only x86_64 is supported.
 */
export function buildNoSpawnFilter(arch: string = process.arch): BpfInstruction[] | undefined {
  if (arch !== 'x64') return undefined;
  const { clone, fork, vfork, clone3 } = X86_64_SYSCALLS;
  return assemble([
    { op: 'load', offset: SECCOMP_DATA_ARCH_OFFSET },
    { op: 'jump', code: BPF_JEQ_K, k: AUDIT_ARCH_X86_64, ifTrue: null, ifFalse: 'kill' },
    { op: 'load', offset: SECCOMP_DATA_NR_OFFSET },
    { op: 'jump', code: BPF_JGE_K, k: X32_SYSCALL_BIT, ifTrue: 'kill', ifFalse: null },
    { op: 'jump', code: BPF_JEQ_K, k: clone3, ifTrue: 'enosys', ifFalse: null },
    { op: 'jump', code: BPF_JEQ_K, k: fork, ifTrue: 'eperm', ifFalse: null },
    { op: 'jump', code: BPF_JEQ_K, k: vfork, ifTrue: 'eperm', ifFalse: null },
    { op: 'jump', code: BPF_JEQ_K, k: clone, ifTrue: null, ifFalse: 'allow' },
    { op: 'load', offset: SECCOMP_DATA_ARG0_LOW_OFFSET },
    { op: 'jump', code: BPF_JSET_K, k: CLONE_THREAD, ifTrue: 'allow', ifFalse: 'eperm' },
    { op: 'ret', k: SECCOMP_RET_ALLOW, label: 'allow' },
    { op: 'ret', k: (SECCOMP_RET_ERRNO | EPERM) >>> 0, label: 'eperm' },
    { op: 'ret', k: (SECCOMP_RET_ERRNO | ENOSYS) >>> 0, label: 'enosys' },
    { op: 'ret', k: SECCOMP_RET_KILL_PROCESS, label: 'kill' },
  ]);
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
    if (step.op === 'ret') labels.set(step.label, index);
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
      case 'jump':
        return { code: step.code, jt: offset(index, step.ifTrue), jf: offset(index, step.ifFalse), k: step.k >>> 0 };
      case 'ret':
        return { code: BPF_RET_K, jt: 0, jf: 0, k: step.k >>> 0 };
    }
  });
}
