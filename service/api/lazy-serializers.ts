/**
 * Fastify's own response serializers (fast-json-stringify, through the compiler Fastify itself uses), each loaded from
 * the code compiled at build time (compiled-schemas.ts) or compiled on the first answer of its route and status,
 * never when the route is registered. Compiling every route's response schemas up front was about 130 ms of every
 * start (issue 19, docs/BENCHMARKS.md). The serializers are the same, so answers are the same (unknown fields still
 * dropped).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { SchemaCode, Serialize } from './compiled-schemas.js';
import type { SchemaWarmup } from './schema-warmup.js';

/** The name under which compiled code records the serializer settings it was made with (see compiled-schemas.ts). */
export function serializerCompilerName(externalSchemas: unknown, options: unknown): string {
  return `fast-json-stringify ${JSON.stringify({ externalSchemas, options })}`;
}

/**
 * A `schemaController.compilersFactory.buildSerializer` for Fastify whose serializers come from `code` or compile on
 * first use, or earlier when `warmup` gets to them after start.
 */
export function lazySerializerFactory(warmup?: SchemaWarmup, code?: SchemaCode): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const lazy = build(externalSchemas, options);
    // A union or if/then/else in a response schema is decided by an ajv validator that fast-json-stringify otherwise
    // compiles on the first answer that reaches it: for the transaction list, ajv compiling the whole page schema,
    // 35–40 ms of the first newest page (issue 19). When compiled here rather than at build time (where those
    // validators are generated too), it is compiled with the serializer for the two GETs a console opens with, so in
    // the warm-up. Not for every route: profiled at 10,000,000 transactions with it on for all, those compiles were
    // 439 ms of a second of the main thread after start (profiler on), for validators most answers never reach.
    const whole = build(externalSchemas, { ...options, compileValidators: true });
    const compiler = serializerCompilerName(externalSchemas, options);
    return (route) => {
      const precompiled = code?.serializer(route, route.schema as object, compiler, { externalSchemas, options });
      const compile = route.method === 'GET' && warmup?.opensWith(route.url) === true ? whole : lazy;
      let serialize: Serialize | undefined;
      if (precompiled === undefined) warmup?.add(route.url, () => void (serialize ??= compile(route)));
      // Compiled code is only read, after start for the routes a console opens with (see validation.ts).
      else if (warmup?.opensWith(route.url) === true) warmup.add(route.url, () => void (serialize ??= precompiled()));
      return (doc: unknown) => (serialize ??= precompiled?.() ?? compile(route))(doc);
    };
  };
}
