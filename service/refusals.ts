/**
 * The two refusals every resource module makes: input that breaks a rule (400 VALIDATION_FAILED listing each problem)
 * and a write that would take a unique field another document holds (409 CONFLICT naming the body field to change).
 * Routes, accounts and mediators all answer with these, so the wording of a problem list is decided here once.
 */
import { AppError } from './errors.js';
import type { ErrorCode } from './errors.js';
import type { ValidationProblem } from './contracts/api.js';
import { UniqueConstraintError } from './storage/store.js';

/** 400 VALIDATION_FAILED with every problem in `details`; the message names the first, so a log line says what to fix. */
export function invalidInput(problems: readonly ValidationProblem[], fallback?: string): AppError {
  const first = problems[0];
  return new AppError('VALIDATION_FAILED', first === undefined ? fallback : `${first.path} ${first.message}`, problems);
}

/** One problem refused under `code` (VALIDATION_FAILED, CONFLICT…), worded and listed the way invalidInput words and lists them. */
export function refusal(code: ErrorCode, problem: ValidationProblem): AppError {
  return new AppError(code, `${problem.path} ${problem.message}`, [problem]);
}

/** Throws invalidInput when there is any problem; does nothing for an empty list. */
export function refuseIfInvalid(problems: readonly ValidationProblem[]): void {
  if (problems.length > 0) throw invalidInput(problems);
}

/** How one resource words a 409: each resource tells its callers in its own terms which field to change. */
export interface ConflictWording {
  /** The message of the answer, given the body field that is taken. */
  message: (field: string) => string;
  /** The problem listed under `body.<field>` in `details`; without it, the answer has no details. */
  problem?: string;
  /** The body field a caller sets a stored field with, where the two names differ (a 409 names what to change). */
  bodyFields?: Readonly<Record<string, string>>;
}

/** A `.catch` handler for a write: a taken unique field becomes 409 CONFLICT in the resource's wording; anything else is rethrown. */
export function conflict(wording: ConflictWording): (err: unknown) => never {
  return (err) => {
    if (!(err instanceof UniqueConstraintError)) throw err;
    const field = wording.bodyFields?.[err.field] ?? err.field;
    const details = wording.problem === undefined ? undefined : [{ path: `body.${field}`, message: wording.problem }];
    throw new AppError('CONFLICT', wording.message(field), details);
  };
}
