/**
 * A route's `statusCodesCheck` (OpenHIM's field): which answers of the primary route let a route that waits for it
 * (`waitPrimaryResponse`) be sent. Comma-separated codes (`201`) and ranges (`2**`, OpenHIM console's form). Pure.
 */

/** One accepted code, or a whole hundred (`2**` is 200 to 299). */
export type StatusCodeRule = { code: number } | { hundred: number };

/** The rules of a statusCodesCheck text, or null when it is malformed. Spaces around the commas are allowed. */
export function parseStatusCodesCheck(text: string): StatusCodeRule[] | null {
  const rules: StatusCodeRule[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const range = /^([1-5])\*\*$/.exec(part);
    if (range !== null) rules.push({ hundred: Number(range[1]) });
    else if (/^[1-5][0-9]{2}$/.test(part)) rules.push({ code: Number(part) });
    else return null;
  }
  return rules;
}

/** True when a waiting route may be sent after the primary answered `status`; an unset check lets any answer through, an unreadable one none. */
export function statusPasses(check: string | undefined, status: number): boolean {
  if (check === undefined || check === '') return true;
  const rules = parseStatusCodesCheck(check);
  if (rules === null) return false;
  return rules.some((r) => ('code' in r ? r.code === status : Math.floor(status / 100) === r.hundred));
}
