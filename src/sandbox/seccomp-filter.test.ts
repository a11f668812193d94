import { describe, expect, it } from 'vitest';

import {
  AF_UNIX,
  AUDIT_ARCH_X86_64,
  BPF_ALU_AND_K,
  BPF_INSTRUCTION_BYTES,
  BPF_JEQ_K,
  BPF_JGE_K,
  BPF_JSET_K,
  BPF_LD_W_ABS,
  BPF_RET_K,
  CLONE_THREAD,
  EACCES,
  ENOSYS,
  EPERM,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  X32_SYSCALL_BIT,
  buildNoSpawnFilter,
  buildSandboxFilter,
  decodeFilter,
  encodeFilter,
  type BpfInstruction,
} from './seccomp-filter.js';

const AUDIT_ARCH_I386 = 0x40000003;
const SIGCHLD = 17;
// What glibc's pthread_create passes to clone (CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID).
const PTHREAD_CLONE_FLAGS = 0x003d0f00;
const CLONE_VM = 0x100;
const CLONE_VFORK = 0x4000;

/** A classic-BPF interpreter for exactly the opcodes a seccomp filter of ours may use. */
function runFilter(program: readonly BpfInstruction[], data: { nr: number; arch: number; arg0: bigint }): number {
  const seccompData = Buffer.alloc(64);
  seccompData.writeInt32LE(data.nr | 0, 0);
  seccompData.writeUInt32LE(data.arch, 4);
  seccompData.writeBigUInt64LE(data.arg0, 16);
  let acc = 0;
  for (let pc = 0; pc < program.length; ) {
    const ins = program[pc]!;
    switch (ins.code) {
      case BPF_LD_W_ABS:
        acc = seccompData.readUInt32LE(ins.k);
        pc += 1;
        break;
      case BPF_ALU_AND_K:
        acc = (acc & ins.k) >>> 0;
        pc += 1;
        break;
      case BPF_JEQ_K:
        pc += 1 + (acc === ins.k ? ins.jt : ins.jf);
        break;
      case BPF_JGE_K:
        pc += 1 + (acc >= ins.k ? ins.jt : ins.jf);
        break;
      case BPF_JSET_K:
        pc += 1 + ((acc & ins.k) !== 0 ? ins.jt : ins.jf);
        break;
      case BPF_RET_K:
        return ins.k;
      default:
        throw new Error(`unexpected opcode 0x${ins.code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('fell off the end of the program');
}

const program = buildNoSpawnFilter('x64')!;
const verdict = (nr: number, arg0 = 0n, arch = AUDIT_ARCH_X86_64): number =>
  runFilter(decodeFilter(encodeFilter(program)), { nr, arch, arg0 });

describe('the no-spawn seccomp filter', () => {
  it('encodes 8 little-endian bytes per instruction and decodes back to the same program', () => {
    const bytes = encodeFilter(program);
    expect(bytes.length).toBe(program.length * BPF_INSTRUCTION_BYTES);
    // Instruction 0: ld [4] (the arch field).
    expect([...bytes.subarray(0, 8)]).toEqual([0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00]);
    // Instruction 1: jeq #0xc000003e, jt 0, jf -> kill.
    expect([...bytes.subarray(8, 10)]).toEqual([0x15, 0x00]);
    expect(bytes.readUInt32LE(12)).toBe(AUDIT_ARCH_X86_64);
    expect(decodeFilter(bytes)).toEqual(program);
  });

  it('reads the instructions it should, in order, and ends in return statements', () => {
    expect(program.map((ins) => ins.code)).toEqual([
      BPF_LD_W_ABS, BPF_JEQ_K, BPF_LD_W_ABS, BPF_JGE_K, BPF_JEQ_K, BPF_JEQ_K, BPF_JEQ_K, BPF_JEQ_K,
      BPF_RET_K, BPF_LD_W_ABS, BPF_JSET_K, BPF_RET_K, BPF_RET_K, BPF_RET_K, BPF_RET_K, BPF_RET_K,
    ]);
    expect(program.filter((ins) => ins.code === BPF_LD_W_ABS).map((ins) => ins.k)).toEqual([4, 0, 16]);
    program.forEach((ins, pc) => {
      if (ins.code === BPF_RET_K) return;
      expect(pc + 1 + ins.jt).toBeLessThan(program.length);
      expect(pc + 1 + ins.jf).toBeLessThan(program.length);
    });
  });

  it('kills a foreign architecture and the x32 syscall range', () => {
    expect(verdict(57, 0n, AUDIT_ARCH_I386)).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(verdict(0, 0n, AUDIT_ARCH_I386)).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(verdict(X32_SYSCALL_BIT + 57)).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(verdict(X32_SYSCALL_BIT)).toBe(SECCOMP_RET_KILL_PROCESS);
  });

  it('answers clone3 with ENOSYS and fork/vfork with EPERM', () => {
    expect(verdict(435)).toBe((SECCOMP_RET_ERRNO | ENOSYS) >>> 0);
    expect(verdict(57)).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    expect(verdict(58)).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
  });

  it('allows clone for threads only', () => {
    expect(verdict(56, BigInt(PTHREAD_CLONE_FLAGS))).toBe(SECCOMP_RET_ALLOW);
    expect(verdict(56, BigInt(CLONE_THREAD))).toBe(SECCOMP_RET_ALLOW);
    expect(verdict(56, BigInt(SIGCHLD))).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    expect(verdict(56, BigInt(CLONE_VM | CLONE_VFORK | SIGCHLD))).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    // Flags above bit 31 do not smuggle CLONE_THREAD in: only the low word carries it.
    expect(verdict(56, (1n << 32n) | BigInt(SIGCHLD))).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
  });

  it('allows everything else, execve included (replacing itself is not spawning)', () => {
    for (const nr of [0, 1, 2, 59, 60, 231, 322, 434, 436]) expect(verdict(nr)).toBe(SECCOMP_RET_ALLOW);
  });

  it('has no program for other architectures, so callers cannot promise process denial there', () => {
    expect(buildNoSpawnFilter('arm64')).toBeUndefined();
    expect(buildNoSpawnFilter('ia32')).toBeUndefined();
  });

  it('rejects bytes that are not whole instructions', () => {
    expect(() => decodeFilter(new Uint8Array(12))).toThrow(/multiple of 8/);
  });
});

const AF_INET = 2;
const AF_NETLINK = 16;
const all = buildSandboxFilter({ denySpawn: true, denyUnixSockets: true, killSignalExitCodes: true, denyAsyncIo: true }, 'x64')!;
const judge = (rules: BpfInstruction[], nr: number, arg0 = 0n): number =>
  runFilter(decodeFilter(encodeFilter(rules)), { nr, arch: AUDIT_ARCH_X86_64, arg0 });

describe('the unix-socket and exit-status rules', () => {
  it('answers socket(AF_UNIX) with EACCES and allows other families and socketpair', () => {
    expect(judge(all, 41, BigInt(AF_UNIX))).toBe((SECCOMP_RET_ERRNO | EACCES) >>> 0);
    expect(judge(all, 41, BigInt(AF_INET))).toBe(SECCOMP_RET_ALLOW);
    expect(judge(all, 41, BigInt(AF_NETLINK))).toBe(SECCOMP_RET_ALLOW);
    // socketpair(AF_UNIX, ...) is syscall 53: Node's child stdio needs it.
    expect(judge(all, 53, BigInt(AF_UNIX))).toBe(SECCOMP_RET_ALLOW);
  });

  it('kills exit and exit_group with a status bwrap would report as a signal, by the low byte', () => {
    for (const nr of [60, 231]) {
      for (const status of [0n, 1n, 2n, 127n, 128n, 256n + 7n]) expect(judge(all, nr, status)).toBe(SECCOMP_RET_ALLOW);
      for (const status of [129n, 134n, 137n, 255n, 256n + 134n, 0xffffffffn]) expect(judge(all, nr, status)).toBe(SECCOMP_RET_KILL_PROCESS);
    }
  });

  it('answers kernel AIO and io_uring with ENOSYS, and only under that rule', () => {
    // io_setup, io_submit, io_uring_setup, io_uring_enter, io_uring_register.
    for (const nr of [206, 209, 425, 426, 427]) expect(judge(all, nr)).toBe((SECCOMP_RET_ERRNO | ENOSYS) >>> 0);
    // io_getevents (208), io_destroy (207) and plain write (1) and pwrite64 (18) stay.
    for (const nr of [1, 18, 207, 208]) expect(judge(all, nr)).toBe(SECCOMP_RET_ALLOW);
    const noAsync = buildSandboxFilter({ denySpawn: true, denyUnixSockets: false, killSignalExitCodes: false, denyAsyncIo: false }, 'x64')!;
    expect(judge(noAsync, 425)).toBe(SECCOMP_RET_ALLOW);
  });

  it('answers clone and unshare with CLONE_NEWUSER with EPERM and clone3 with ENOSYS, only under that rule', () => {
    const CLONE_NEWUSER = 0x10000000n;
    const users = buildSandboxFilter({ denySpawn: false, denyUnixSockets: false, killSignalExitCodes: false, denyAsyncIo: false, denyUserNamespaces: true }, 'x64')!;
    expect(judge(users, 272, CLONE_NEWUSER)).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    expect(judge(users, 56, CLONE_NEWUSER | BigInt(SIGCHLD))).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    expect(judge(users, 435)).toBe((SECCOMP_RET_ERRNO | ENOSYS) >>> 0);
    // Other namespaces, fork-like clones and threads stay (the shell forks).
    expect(judge(users, 272, 0x20000n)).toBe(SECCOMP_RET_ALLOW);
    expect(judge(users, 56, BigInt(SIGCHLD))).toBe(SECCOMP_RET_ALLOW);
    expect(judge(users, 56, BigInt(PTHREAD_CLONE_FLAGS))).toBe(SECCOMP_RET_ALLOW);
    expect(judge(users, 57)).toBe(SECCOMP_RET_ALLOW);
    // With the spawn rule too: unshare is still checked, clone keeps the spawn rule's answer.
    const both = buildSandboxFilter({ denySpawn: true, denyUnixSockets: false, killSignalExitCodes: false, denyAsyncIo: false, denyUserNamespaces: true }, 'x64')!;
    expect(judge(both, 272, CLONE_NEWUSER)).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    expect(judge(both, 56, BigInt(PTHREAD_CLONE_FLAGS))).toBe(SECCOMP_RET_ALLOW);
    expect(judge(all, 272, CLONE_NEWUSER)).toBe(SECCOMP_RET_ALLOW);
  });

  it('keeps the rules independent: each filter carries only what was asked', () => {
    const sockets = buildSandboxFilter({ denySpawn: false, denyUnixSockets: true, killSignalExitCodes: false, denyAsyncIo: false }, 'x64')!;
    expect(judge(sockets, 41, BigInt(AF_UNIX))).toBe((SECCOMP_RET_ERRNO | EACCES) >>> 0);
    expect(judge(sockets, 57)).toBe(SECCOMP_RET_ALLOW);
    expect(judge(sockets, 231, 134n)).toBe(SECCOMP_RET_ALLOW);
    const exits = buildSandboxFilter({ denySpawn: false, denyUnixSockets: false, killSignalExitCodes: true, denyAsyncIo: false }, 'x64')!;
    expect(judge(exits, 231, 134n)).toBe(SECCOMP_RET_KILL_PROCESS);
    expect(judge(exits, 41, BigInt(AF_UNIX))).toBe(SECCOMP_RET_ALLOW);
    expect(judge(exits, 56, 17n)).toBe(SECCOMP_RET_ALLOW);
    // The spawn rules are unchanged inside the combined filter.
    expect(judge(all, 57)).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    expect(judge(all, 56, BigInt(PTHREAD_CLONE_FLAGS))).toBe(SECCOMP_RET_ALLOW);
    expect(judge(all, 0)).toBe(SECCOMP_RET_ALLOW);
  });
});
