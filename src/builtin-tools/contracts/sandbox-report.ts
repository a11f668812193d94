// The `sandbox` field of both shells' values (bash, persistent bash): the backend that confined the
// command and what it enforced, like a run_code result (docs/sandbox.md).

import { z } from 'zod';

const level = z.enum(['full', 'partial', 'none']);

export const sandboxReport = z.strictObject({
  backend: z.enum(['bwrap', 'node-permission', 'none']),
  enforced: z.strictObject({ fs: level, network: level, process: level }),
});
