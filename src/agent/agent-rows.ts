// The row kinds an agent's harness is assembled with: the shipped table (src/presets/shipped-rows.ts)
// plus the rows of this layer, which assembly cannot import (docs/architecture.md, "Layers"): the
// default `loop`. Front-ends hand this table to createHarness (src/agent/agent-harness.ts).

import type { Plugin } from '../context/context.js';
import type { RowKinds } from '../row-kind.js';
import { SHIPPED_ROWS } from '../presets/shipped-rows.js';
import { loopPlugin } from './loop-service.js';

export const AGENT_ROWS: RowKinds = Object.freeze({
  ...SHIPPED_ROWS,
  loop: { load: () => loopPlugin as Plugin<unknown> },
});
