/** Schema pieces shared by several routes. */
import { Type } from 'typebox';

/** The JSON error shape, for response documentation. */
export const ErrorResponse = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Unknown() }),
});

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });

/** A route with no query string accepts none, so a typo in a query key is reported instead of ignored. */
export const NoQuery = Type.Object({}, { additionalProperties: false });
