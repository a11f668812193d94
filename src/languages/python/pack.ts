// The Python language pack (docs/python-runtime.md): programs are the body of an `async def` run by
// python3 (runtime/, its bootstrap the real file runtime/child/bootstrap.py), declared to the model
// as a Python module of TypedDicts and stubs (sdk/render-python-sdk.ts), explained in prompt.ts's
// words.

import type { LanguagePack } from '../language-pack.js';
import { pythonPrompt } from './prompt.js';
import { PYTHON_SDK_BINDING_DECLARATION, renderPythonSdk } from './sdk/render-python-sdk.js';

export const pythonPack: LanguagePack = {
  id: 'python',
  name: 'Python',
  extensions: ['.py'],
  flags: ['py', 'python'],
  lineComment: '#',
  sdk: { render: renderPythonSdk, bindingDeclaration: PYTHON_SDK_BINDING_DECLARATION, fence: 'python' },
  prompt: pythonPrompt,
  async createRuntime(options) {
    const { createPythonRuntime } = await import('./runtime/python-runtime.js');
    return createPythonRuntime(options);
  },
  runtimeRow: 'python-runtime',
};
