// `node --import ./scripts/ts-register.mjs file.ts`: runs this repo's TypeScript sources directly on
// Node 20, which has no type stripping of its own (see ts-hooks.mjs). Used by `npm run bench` and by
// tests whose child processes import the sources.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
