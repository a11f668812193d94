// `$PTC_HOME/trust.json`: the workspaces the user trusted, each keyed by its real path with the digest
// of the configuration they saw (docs/presets.md, "Trust"). Written whole to a temporary file (0600)
// and renamed over the old one, so a reader never sees half a file. A store that is missing, too
// large or not valid JSON trusts nothing.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { MAX_TRUST_STORE_BYTES } from './limits.js';
import { replaceFile } from '../replace-file.js';

export const TRUST_STORE_FILE = 'trust.json';

const recordSchema = z.object({ digest: z.string(), trustedAt: z.string() });
const storeSchema = z.object({ version: z.literal(1), workspaces: z.record(z.string(), recordSchema) });

export type TrustRecord = z.infer<typeof recordSchema>;

export function trustStorePath(ptcHome: string): string {
  return path.join(ptcHome, TRUST_STORE_FILE);
}

/** The trusted workspaces; empty for a store that does not exist or cannot be read as one. */
export function readTrustStore(ptcHome: string): Record<string, TrustRecord> {
  const file = trustStorePath(ptcHome);
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_TRUST_STORE_BYTES) return {};
    const parsed = storeSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data.workspaces : {};
  } catch {
    return {};
  }
}

/** Records `workspace` (a real path) as trusted with `digest`. */
export function recordTrust(ptcHome: string, workspace: string, digest: string): string {
  const workspaces = readTrustStore(ptcHome);
  workspaces[workspace] = { digest, trustedAt: new Date().toISOString() };
  return writeStore(ptcHome, workspaces);
}

/** Forgets `workspace`; false when it was not trusted. */
export function revokeTrust(ptcHome: string, workspace: string): boolean {
  const workspaces = readTrustStore(ptcHome);
  if (!Object.hasOwn(workspaces, workspace)) return false;
  delete workspaces[workspace];
  writeStore(ptcHome, workspaces);
  return true;
}

function writeStore(ptcHome: string, workspaces: Record<string, TrustRecord>): string {
  const file = trustStorePath(ptcHome);
  try {
    replaceFile(file, `${JSON.stringify({ version: 1, workspaces }, null, 2)}\n`, 0o600);
    return file;
  } catch (error) {
    throw new ConfigError(`Cannot write the trust store ${file}: ${(error as Error).message}. Check that PTC_HOME (${ptcHome}) is a writable directory.`);
  }
}
