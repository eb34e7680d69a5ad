/**
 * The configuration reference page (`docs/operations/configuration.md`, issue 39): how settings are given, then the
 * table of every key generated from the schema (service/config/reference.ts). The whole page is generated, so it has
 * no markers to keep; `npm run docs:generate` writes it, test/docs/generated.test.ts fails when it is stale.
 */
import { configReferenceMarkdown } from '../service/config/index.js';

export function configurationPage(): string {
  return `# Configuration reference

> Generated from \`service/config/schema.ts\` by \`npm run docs:generate\` (also run by \`npm run build\`): do not edit
> this page; change the schema's descriptions and regenerate.

## Where settings come from

Each setting is taken from, in order, the last one found winning:

1. its default (below);
2. a JSON configuration file, named by \`--config <file>\` or the \`JUNCTION_CONFIG\` environment variable
   ([assets/junction.example.json](../../assets/junction.example.json) is an example to start from);
3. its \`JUNCTION_*\` environment variable (the table names each).

A secret (a password, a client secret, a gateway key) can also be given as \`<VARIABLE>_FILE\`: the path of a file
that holds the value, so it stays out of the environment and the process list.

Junction refuses to start on a key it does not know or a value that is not allowed, and names the key and what it
accepts, so a typo never goes unnoticed.

Some settings a clinic changes after installation (email, the SMS gateway, the console's address in links, scheduled
backups) can also be saved on the console's Settings page; a value saved there is used instead of the file's and
the environment's until it is cleared ([alerts, email and SMS](../admin/alerts.md)).

## Every key

${configReferenceMarkdown().trim()}
`;
}
