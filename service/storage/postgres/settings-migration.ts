/**
 * Migration 8: the `settings` collection (settings saved in the console, issue 35), laid out as version 1 laid out
 * every collection: a jsonb document, its GIN index, the unique key and the partial index of array values that
 * the index-served lookups use. Written out, as released migrations never change.
 */
export const settingsMigration = {
  version: 8,
  name: 'settings collection',
  sql: [
    'CREATE TABLE store_settings (id text PRIMARY KEY, doc jsonb NOT NULL)',
    'CREATE INDEX store_settings_doc ON store_settings USING gin (doc jsonb_path_ops)',
    "CREATE UNIQUE INDEX store_settings_u_key ON store_settings ((doc #> '{key}')) WHERE (doc #> '{key}') IS NOT NULL",
    "CREATE INDEX store_settings_a_key ON store_settings (id) WHERE jsonb_typeof((doc #> '{key}')) = 'array'",
  ].join(';\n'),
} as const;
