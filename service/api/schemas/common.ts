/** Schema pieces shared by several routes. */
import { Type } from 'typebox';
import type { Static, TSchema, TSchemaOptions } from 'typebox';
import { DEFAULT_FREE_FORM_LIMITS } from '../../domain/util/free-form.js';
import type { FreeFormLimits } from '../../domain/util/free-form.js';
import { MAX_PAGE_LIMIT } from '../../domain/util/paging.js';
import { FREE_FORM_KEYWORD } from '../validation.js';

/** The JSON error shape, for response documentation. */
export const ErrorResponse = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Unknown() }),
});

/** The answer of a `DELETE`: what was done. */
export const MessageAnswerSchema = Type.Object({ message: Type.String() });

/**
 * An answer of two shapes told apart by `test` alone (`if`/`then`/`else`). The serializer checks only `test`, never
 * the answer itself (as it would each branch of an `anyOf`), so a long list costs no more than with one shape.
 */
export function EitherAnswer<Then extends TSchema, Else extends TSchema>(test: Record<string, unknown>, then: Then, otherwise: Else) {
  return Type.Unsafe<Static<Then> | Static<Else>>({ if: test, then, else: otherwise });
}

/**
 * An answer's free-form text map (headers, properties): typed as the contract says, but with no keywords for the
 * serializer, which then writes it whole with JSON.stringify. A response schema drops what it does not list, and
 * these keys are not known in advance; one native call is also much faster than fast-json-stringify's loop over them.
 */
export const TextMapAnswer = Type.Unsafe<Record<string, string>>({ description: 'names to text values, as recorded' });

/** A field that may also be sent as null: in a PUT, null removes it; in a document sent back as fetched, it means "not set". */
export function OrNull<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });

/** A route with no query string accepts none, so a typo in a query key is reported instead of ignored. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

// Beyond this, page × limit is no longer an exact integer even at the smallest useful limit; routes check the product
// (domain/util/paging.ts), as a larger limit lowers the bound.
const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 1000);

/** OpenHIM's paging query: `filterLimit` items per page (0: no limit, streamed), `filterPage` counted from 0. */
export const Paging = {
  filterLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE_LIMIT, description: 'items per page; 0 is no limit' })),
  filterPage: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE, description: 'the page, counted from 0' })),
};

/**
 * An object of any keys and values that is stored as given (settings, configuration values): its depth, size, key
 * names and numbers are checked by domain/util/free-form.ts, so a value the store cannot hold is refused with a 400 here.
 */
export function FreeFormObject(options: TSchemaOptions & { limits?: Partial<FreeFormLimits> } = {}) {
  const { limits, ...rest } = options;
  return Type.Record(Type.String(), Type.Unknown(), { ...rest, [FREE_FORM_KEYWORD]: { ...DEFAULT_FREE_FORM_LIMITS, ...limits } });
}
