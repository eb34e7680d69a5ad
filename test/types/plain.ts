/**
 * Type-level helpers for the wire-type tests. `expectTypeOf(...).toEqualTypeOf` tells `A & B` from the object that
 * lists the same fields, and TypeBox's `Static` and the contracts write the same shape in those two ways, so both
 * sides are flattened first.
 */

/** T with every intersection flattened into one object type, at every depth (arrays and their items included). */
export type Plain<T> = T extends readonly (infer Item)[] ? Plain<Item>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;
