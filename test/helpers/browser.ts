// Whether the tests that need a real browser can run here: Debian's chromium driven by
// playwright-core (no browser download). Without it they skip with one printed reason; with
// PTC_REQUIRE_BROWSER=1 (CI, after installing chromium) they run anyway and fail, so a machine
// without the browser can never pass by skipping.

import fs from 'node:fs';

/** Where Debian's `chromium` package puts the browser; PTC_CHROMIUM overrides it. */
export const chromiumPath = process.env['PTC_CHROMIUM'] ?? '/usr/bin/chromium';

export const browserUsable = isExecutable(chromiumPath);

export const browserRequired = process.env['PTC_REQUIRE_BROWSER'] === '1';

/** Pass to `describe.skipIf` for tests that need the browser. */
export const skipWithoutBrowser = !browserUsable && !browserRequired;

if (skipWithoutBrowser) {
  process.stderr.write(`browser tests skipped: no chromium at ${chromiumPath} (apt-get install -y chromium, or set PTC_CHROMIUM)\n`);
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
