// The ptc-runtime seam: types every code runtime implements, plus helpers that know nothing about tools.

export type * from './types.js';
export { globalNameProblem, isPortableIdentifier, PORTABLE_IDENTIFIER_PATTERN, RESERVED_GLOBAL_NAMES } from './identifiers.js';
export { createTimeoutDescriptor, resolveTimeoutMs } from './timeout.js';
export { resolveRunRequest, type ResolveRequestOptions } from './resolve-request.js';
