/** The compatibility suite's check for a refusal that names the offending field (the suite's callers are in openhim-caller.ts). */
import { expect } from 'vitest';
import type { TestResponse } from './openhim-caller.js';

/** A 400 whose answer names `path` (such as `body.colour`), as every bad input must get. */
export function expectRefusalNaming(res: TestResponse, path: string): void {
  expect(res.status, res.text).toBe(400);
  expect(res.text).toContain(path);
}
