/**
 * The `freeForm` schema keyword: a value under it must keep the rules of domain/util/free-form.ts. Written as generated
 * code calling `freeFormErrors` (not as an ajv `validate` function, which ajv cannot put in standalone code), so the
 * validators compiled at build time check it the same way (issue 19).
 */
import { _, Name } from 'ajv';
import type { Code, CodeKeywordDefinition, ErrorObject } from 'ajv';
import { freeFormProblem } from '../domain/util/free-form.js';
import type { FreeFormLimits } from '../domain/util/free-form.js';

/** The schema keyword that puts a free-form value (settings, config values) under the rules of domain/util/free-form.ts. */
export const FREE_FORM_KEYWORD = 'freeForm';

function pointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The keyword's errors for `data` at `instancePath`, or null when it keeps the rules; called by compiled validators. */
export function freeFormErrors(data: unknown, limits: FreeFormLimits, instancePath: string, schemaPath: string): ErrorObject[] | null {
  const problem = freeFormProblem(data, limits);
  if (problem === null) return null;
  return [{ keyword: FREE_FORM_KEYWORD, instancePath: `${instancePath}${pointer(problem.at)}`, schemaPath, params: {}, message: problem.message }];
}

// The names ajv gives the error list and count in every function it generates (ajv's compile/names).
const vErrors = new Name('vErrors');
const errors = new Name('errors');
const instancePath = new Name('instancePath');

/**
 * The keyword's definition; `source` is how standalone code reaches `freeFormErrors` (a `require` of this module),
 * needed only when generating code at build time.
 */
export function freeFormKeyword(source?: Code): CodeKeywordDefinition {
  return {
    keyword: FREE_FORM_KEYWORD,
    schemaType: 'object',
    code(cxt) {
      const { gen, data, it } = cxt;
      const check = gen.scopeValue('func', source === undefined ? { ref: freeFormErrors } : { ref: freeFormErrors, code: source });
      const found = gen.const('freeFormFound', _`${check}(${data}, ${cxt.schemaValue}, ${instancePath} + ${it.errorPath}, ${`${it.errSchemaPath}/${FREE_FORM_KEYWORD}`})`);
      // As ajv reports the errors of a keyword's own function: appended to the list, counted, so anyOf and allErrors see them.
      gen.if(_`${found} !== null`, () => {
        gen.assign(vErrors, _`${vErrors} === null ? ${found} : ${vErrors}.concat(${found})`).assign(errors, _`${vErrors}.length`);
      });
    },
  };
}
