/**
 * Fastify's own response serializers (fast-json-stringify, through the compiler Fastify itself uses), each compiled on
 * the first answer of its route and status instead of when the route is registered. Compiling every route's response
 * schemas up front was about 130 ms of every start (issue 19, docs/BENCHMARKS.md), and most routes of a clinic's
 * install are rarely called. The serializers are the same, so answers are the same (unknown fields still dropped).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { SchemaWarmup } from './schema-warmup.js';

/**
 * A `schemaController.compilersFactory.buildSerializer` for Fastify whose serializers compile on first use, or
 * earlier when `warmup` gets to them after start.
 */
export function lazySerializerFactory(warmup?: SchemaWarmup): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const lazy = build(externalSchemas, options);
    // A union or if/then/else in a response schema is decided by an ajv validator that fast-json-stringify otherwise
    // compiles on the first answer that reaches it: for the transaction list, ajv compiling the whole page schema,
    // 35–40 ms of the first newest page (issue 19). For the two GETs a console opens with, it is compiled with the
    // serializer, so in the warm-up. Not for every route: profiled at 10,000,000 transactions with it on for all,
    // those compiles were 439 ms of a second of the main thread after start (profiler on), for validators most routes'
    // answers never reach.
    const whole = build(externalSchemas, { ...options, compileValidators: true });
    return (route) => {
      const compile = route.method === 'GET' && warmup?.opensWith(route.url) === true ? whole : lazy;
      let serialize: ((doc: unknown) => string) | undefined;
      warmup?.add(route.url, () => void (serialize ??= compile(route)));
      return (doc: unknown) => (serialize ??= compile(route))(doc);
    };
  };
}
