/**
 * The route code compiled at build time. Here, none: `npm run build:service` bundles a generated module in place of
 * this one (scripts/compile-schemas.ts, scripts/bundle-service.ts), so the bundle always carries code generated from
 * the schemas it was built with; the TypeScript sources (tests, tsc output) compile on first use instead.
 */
import type { CompiledSchemaTable } from './compiled-schemas.js';

export const compiledSchemaTable: CompiledSchemaTable | null = null;
