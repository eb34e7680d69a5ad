/** The embedded NeDB storage engine. */
export { createNedbStore } from './nedb-store.js';
export type { NedbStoreOptions } from './nedb-store.js';
