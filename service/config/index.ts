/** Junction's configuration: schema, defaults, file and environment loading, and the generated reference. */
export { configSchema } from './schema.js';
export type { JunctionConfig } from './schema.js';
export { ConfigError } from './errors.js';
export { resolveConfig } from './resolve.js';
export type { ResolveInput } from './resolve.js';
export { loadConfig } from './load.js';
export { envNameFor } from './env.js';
export { configReference, configReferenceMarkdown } from './reference.js';
export type { ConfigReferenceRow } from './reference.js';
export { defaultDataDir } from './data-dir.js';
