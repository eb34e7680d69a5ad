/**
 * Type-level helpers for the wire-type tests. `expectTypeOf(...).toEqualTypeOf` tells `A & B` from the object that
 * lists the same fields, and TypeBox's `Static` and the contracts write the same shape in those two ways, so both
 * sides are flattened first.
 */
import type { Static, TSchema } from 'typebox';

/** T with every intersection flattened into one object type, at every depth (arrays and their items included). */
export type Plain<T> = T extends readonly (infer Item)[] ? Plain<Item>[] : T extends object ? { [K in keyof T]: Plain<T[K]> } : T;

/** What a TypeBox schema accepts or writes, flattened like the contract it is compared with. */
export type SchemaShape<S extends TSchema> = Plain<Static<S>>;
