// Makes docs/images/ui-run-code-card.png, the README's picture of a run_code card: `ptc ui` on a
// throwaway workspace, a scripted model (test/fixtures/scripted-openai-server.ts) that answers with
// one program calling three tools, and Debian's chromium through playwright-core.
//
//   node --import ./scripts/ts-register.mjs scripts/ui-screenshot.ts [card.png [page.png]]
//
// With a second path it also writes the whole page (preset selector, conversation, composer).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { startUiServer } from '../src/ui/server.js';
import { reply, startScriptedOpenAIServer } from '../test/fixtures/scripted-openai-server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'docs/images/ui-run-code-card.png'));
const pageOut = process.argv[3] !== undefined ? path.resolve(process.argv[3]) : undefined;

const PROGRAM = `const files = (await tools.glob({ pattern: "src/**/*.ts" })).files;
const hits = await Promise.all(files.map((path) => tools.grep({ pattern: "TODO", path })));
const todos = hits.flatMap((h) => h.matches ?? []);
console.log(\`\${todos.length} TODOs in \${files.length} files\`);
return todos.map((m) => \`\${m.path}:\${m.line}\`);`;

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ui-shot-ws-'));
const sessionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-ui-shot-log-'));
fs.mkdirSync(path.join(workspace, 'src'));
fs.writeFileSync(path.join(workspace, 'src/a.ts'), '// TODO: rename\nexport const a = 1;\n');
fs.writeFileSync(path.join(workspace, 'src/b.ts'), 'export const b = 2; // TODO: test\n');

const model = await startScriptedOpenAIServer([
  reply.toolCalls([{ id: 'call_1', name: 'run_code', args: { code: PROGRAM, description: 'Find the TODOs in src/' } }]),
  reply.text('There are two TODOs: src/a.ts line 1 and src/b.ts line 1.'),
]);
const ui = await startUiServer({
  harness: { cwd: workspace, sandbox: 'auto' },
  defaultPreset: 'ptc',
  model: 'scripted',
  baseUrl: model.baseUrl,
  env: {},
  sessionDir,
  approve: 'writes',
});
const browser = await chromium.launch({ executablePath: process.env['PTC_CHROMIUM'] ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(ui.url);
  await page.locator('[data-preset="ptc"] input').check();
  await page.locator('textarea[name="message"]').fill('Find the TODOs in src/ and list them.');
  await page.locator('button.send').click();
  const card = page.locator('[data-card="run_code"][data-status="ok"]');
  await card.waitFor({ timeout: 30_000 });
  await page.locator('.turn-end').waitFor({ timeout: 30_000 });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await card.screenshot({ path: out });
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
  if (pageOut !== undefined) {
    await page.screenshot({ path: pageOut, fullPage: true });
    console.log(`wrote ${path.relative(process.cwd(), pageOut)}`);
  }
} finally {
  await browser.close();
  await ui.close();
  await model.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(sessionDir, { recursive: true, force: true });
}
