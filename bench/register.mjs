// `node --import ./bench/register.mjs bench/run.ts`: runs the TypeScript sources directly on Node 20,
// which has no type stripping of its own (see ts-loader.mjs).
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
