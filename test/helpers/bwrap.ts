// Whether the tests that need a working bubblewrap can run here. On a machine without one they skip
// (the global setup prints the reason once); with PTC_REQUIRE_BWRAP=1, which CI sets after installing
// bubblewrap, they run anyway and fail, so a broken CI machine can never pass by skipping.

import { probeSandbox } from '../../src/sandbox/index.js';

const probe = await probeSandbox();

/** True when bwrap ran a trivial sandbox here. */
export const bwrapUsable = probe.bwrapPath !== undefined;

/** True when the environment demands the bwrap tests (CI). */
export const bwrapRequired = process.env['PTC_REQUIRE_BWRAP'] === '1';

/** Pass to `describe.skipIf` / `it.skipIf` for tests that need a working bwrap. */
export const skipWithoutBwrap = !bwrapUsable && !bwrapRequired;

/** Why bwrap is unusable, for messages. */
export const bwrapDetail = probe.detail ?? 'unknown reason';
