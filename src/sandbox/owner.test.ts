import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatOwner, identityOf, ownerProvablyDead, ownerTag, parseOwner, type OwnerIdentity } from './owner.js';

const self = identityOf(process.pid) as OwnerIdentity;

describe('owner identity', () => {
  it('names this process by pid, pid namespace and start time, and reads the name back', () => {
    expect(ownerTag()).toBe(formatOwner(self));
    expect(self.pidNamespace).toBeGreaterThan(0);
    expect(parseOwner(`${ownerTag()}-7`)).toEqual(self);
    expect(parseOwner(`${ownerTag()}-abc123`)).toEqual(self);
    // The names older versions made (`<pid>-<n>`) name no owner: they are never swept.
    expect(parseOwner('1234-0')).toBeUndefined();
    expect(parseOwner('1234-0-5-')).toBeUndefined();
  });

  it('is provably dead only for a gone or reused pid of this pid namespace', async () => {
    const gone = spawnSync('true').pid as number;
    expect(ownerProvablyDead({ ...self, pid: gone })).toBe(true);
    const live = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const identity = identityOf(live.pid as number) as OwnerIdentity;
      expect(ownerProvablyDead(identity)).toBe(false);
      // The same pid with another start time: a reused pid, so its owner is gone.
      expect(ownerProvablyDead({ ...identity, startTime: identity.startTime + 1 })).toBe(true);
      // Another pid namespace: nothing here can prove it dead, gone pid or not.
      expect(ownerProvablyDead({ ...identity, pidNamespace: identity.pidNamespace + 1 })).toBe(false);
      expect(ownerProvablyDead({ ...self, pid: gone, pidNamespace: self.pidNamespace + 1 })).toBe(false);
    } finally {
      live.kill('SIGKILL');
    }
    expect(ownerProvablyDead(self)).toBe(false);
  });
});
