/**
 * The fingerprint of a schema as one compiler compiles it, which the code compiled from it at build time carries: code
 * is used only for the schema (and compiler settings) it was made from, so a schema changed without a rebuild is
 * compiled at run time instead of being checked by stale code. Pure.
 */
import { createHash } from 'node:crypto';

/** A short digest of `compiler` (the compiler and its settings) and the schema's JSON. */
export function schemaHash(compiler: string, schema: unknown): string {
  return createHash('sha256').update(compiler).update('\u0000').update(JSON.stringify(schema) ?? 'undefined').digest('base64url').slice(0, 24);
}
