// The TypeScript language pack: programs are erasable TypeScript run by the Node runtime
// (runtime/), declared to the model as a TypeScript SDK (sdk/render-sdk.ts), explained in
// prompt.ts's words. The default language.

import type { LanguagePack } from '../language-pack.js';
import { typescriptPrompt } from './prompt.js';
import { renderTypeScriptSdk } from './sdk/render-sdk.js';
import { SDK_BINDING_DECLARATION } from './sdk/sdk-declaration.js';

export const typescriptPack: LanguagePack = {
  id: 'typescript',
  name: 'TypeScript',
  extensions: ['.ts'],
  flags: ['ts', 'typescript'],
  lineComment: '//',
  sdk: { render: renderTypeScriptSdk, bindingDeclaration: SDK_BINDING_DECLARATION, fence: 'ts' },
  prompt: typescriptPrompt,
  async createRuntime(options) {
    const { createNodeRuntime } = await import('./runtime/node-runtime.js');
    return createNodeRuntime(options);
  },
  runtimeRow: 'node-runtime',
};
