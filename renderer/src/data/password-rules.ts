/** The password rules the server applies (domain/access/password-policy.ts), checked before sending so mistakes show at once. */

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/** Problems with a new password and its confirmation, by field (`password`, `confirm`). */
export function passwordProblems(password: string, confirm: string, email: string): Record<string, string> {
  const problems: Record<string, string> = {};
  const length = [...password].length;
  if (password === '') problems.password = 'Enter a password';
  else if (length < PASSWORD_MIN_LENGTH) problems.password = `Use at least ${PASSWORD_MIN_LENGTH} characters`;
  else if (length > PASSWORD_MAX_LENGTH) problems.password = `Use at most ${PASSWORD_MAX_LENGTH} characters`;
  else if (password.trim() === '') problems.password = 'A password cannot be only spaces';
  else if (email !== '' && password.toLowerCase() === email.toLowerCase()) problems.password = 'Do not use the email address as the password';
  if (confirm !== password) problems.confirm = 'The two passwords are different';
  return problems;
}
