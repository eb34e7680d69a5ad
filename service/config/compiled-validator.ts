/**
 * The configuration schema's validator compiled at build time. Here, none: `npm run build:service` bundles a generated
 * module in place of this one (scripts/compile-schemas.ts), so the bundle carries a validator made from the schema
 * it was built with, and a start compiles nothing (issue 19: ajv compiling this schema was about 150 ms of a start).
 */
import type { ValidateFunction } from 'ajv';

/** The hash of the schema and settings it came from (domain/util/schema-hash.ts), and how to load it. */
export const compiledConfigValidator: readonly [hash: string, load: () => ValidateFunction] | null = null;
