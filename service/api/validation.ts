/**
 * Schema validation for every route. Bodies are validated strictly (no type coercion, unknown fields refused);
 * params and query strings are coerced, since they arrive as text.
 */
import { Ajv } from 'ajv';
import type { Code, ErrorObject, Options, ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { SchemaWarmup } from './schema-warmup.js';
import type { SchemaCode } from './compiled-schemas.js';
import { freeFormKeyword } from './free-form-keyword.js';
import type { ValidationProblem } from '../contracts/api.js';
import { pointerToDotted as dotted } from '../domain/util/json-pointer.js';

export { FREE_FORM_KEYWORD } from './free-form-keyword.js';

// strictNumbers is on by itself only when `strict` is: `1e309` parses to Infinity, which ajv otherwise takes as a number.
const common: Options = { allErrors: true, removeAdditional: false, strict: false, strictNumbers: true, useDefaults: true };

function pointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The validator settings of a request part: bodies strict, the text parts (query, params, headers) coerced. */
export function validatorOptions(coerces: boolean): Options {
  return { ...common, coerceTypes: coerces ? 'array' : false };
}

/** The name under which compiled code records which validator settings it was made with (see compiled-schemas.ts). */
export function validatorCompilerName(coerces: boolean): string {
  return `ajv ${coerces ? 'coercing' : 'strict'} ${JSON.stringify(validatorOptions(coerces))}`;
}

/**
 * An ajv instance with the API's formats and keywords. `standalone` is set when generating code at build time: it
 * keeps each validator's source, and says how that code reaches the free-form check.
 */
export function makeAjv(coerces: boolean, standalone?: { freeFormSource: Code }): Ajv {
  const options = validatorOptions(coerces);
  const ajv = new Ajv(standalone === undefined ? options : { ...options, code: { source: true } });
  // ajv-formats is CommonJS: under NodeNext its default import is module.exports, which carries `.default` too.
  formatsPlugin.default(ajv, ['email', 'date-time', 'date', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname']);
  ajv.addKeyword(freeFormKeyword(standalone?.freeFormSource));
  return ajv;
}

/**
 * Where a coerced value is not a finite number. ajv coerces the text "Infinity" or "1e999" to Infinity without the
 * finiteness check strictNumbers makes on real numbers, and then skips minimum and maximum for it (ajv issue 2212).
 * Query strings and path parameters are flat, so one level (and the items of a repeated key) is all there is to check.
 */
function nonFiniteErrors(data: unknown): ErrorObject[] {
  if (typeof data !== 'object' || data === null) return [];
  const errors: ErrorObject[] = [];
  for (const [key, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) {
      errors.push({ keyword: 'finite', instancePath: pointer([key]), schemaPath: '', params: {}, message: 'must be a finite number' });
    }
  }
  return errors;
}

/**
 * A validator compiler that picks strict or coercing validation by request part. A validator is loaded from `code`
 * (compiled at build time) or compiled on the route's first request; only the latter are left to `warmup`.
 */
export function createValidatorCompiler(warmup?: SchemaWarmup, code?: SchemaCode): FastifySchemaCompiler<unknown> {
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  return ({ schema, httpPart, url, method }) => {
    const coerces = httpPart !== 'body';
    const precompiled = code?.validator({ method, url, httpPart }, schema as object, validatorCompilerName(coerces));
    // An ajv instance is made only when something compiles here: the bundle carries every route's validator.
    const compile = (): ValidateFunction => {
      const ajv = coerces ? (coercing ??= makeAjv(true)) : (strict ??= makeAjv(false));
      return ajv.compile(schema as object);
    };
    // Compiled on a route's first request (or by the warm-up after start), not at start-up: compiling every route's
    // schemas up front was a third of the time to ready (measured in docs/BENCHMARKS.md).
    let compiled: ValidateFunction | undefined;
    if (precompiled === undefined) warmup?.add(url, () => void (compiled ??= compile()));
    // Compiled code is only read (about 0.5 ms a route), after start for the routes a console opens with, so their
    // first requests do not (issue 19).
    else if (warmup?.opensWith(url) === true) warmup.add(url, () => void (compiled ??= precompiled()));
    const validate = Object.assign(
      (data: unknown): boolean => {
        compiled ??= precompiled?.() ?? compile();
        const valid = compiled(data);
        validate.errors = compiled.errors ?? null;
        if (!valid || !coerces) return valid;
        const nonFinite = nonFiniteErrors(data);
        validate.errors = nonFinite.length > 0 ? nonFinite : null;
        return nonFinite.length === 0;
      },
      { errors: null as ErrorObject[] | null },
    );
    return validate;
  };
}

function join(...parts: (string | undefined)[]): string {
  return parts.filter((p) => p !== undefined && p !== '').join('.');
}

/** Turns validator errors into problems that name the field and say what is allowed. */
export function describeValidationErrors(errors: readonly Partial<ErrorObject>[], part: string): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  for (const err of errors) {
    const at = join(part, dotted(err.instancePath ?? ''));
    const params = (err.params ?? {}) as Record<string, unknown>;
    let problem: ValidationProblem;
    switch (err.keyword) {
      case 'additionalProperties':
        problem = { path: join(at, String(params.additionalProperty)), message: 'is not a known field' };
        break;
      case 'required':
        problem = { path: join(at, String(params.missingProperty)), message: 'is required' };
        break;
      case 'type':
        problem = { path: at, message: `must be ${String(params.type)}` };
        break;
      case 'enum':
        problem = { path: at, message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
        break;
      case 'format':
        problem = { path: at, message: `must be a valid ${String(params.format)}` };
        break;
      default:
        problem = { path: at, message: err.message ?? 'is not valid' };
    }
    const key = `${problem.path}|${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}
