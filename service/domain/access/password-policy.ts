/** Password rules, as a pure check so the API and the first-run seeding apply the same ones. */

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/** Returns what is wrong with a proposed password, or null when it is acceptable. */
export function passwordProblem(password: string, context: { email: string; defaultPassword?: string }): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  if (password.trim().length === 0) return 'must not be only spaces';
  if (password.toLowerCase() === context.email.toLowerCase()) return 'must not be the email address';
  if (context.defaultPassword !== undefined && password === context.defaultPassword) {
    return 'must not be the documented default password';
  }
  return null;
}
