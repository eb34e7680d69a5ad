/**
 * Issue 35, the settings helper's part: opening the sign-in page writes no audit, while a wrong password still does.
 */
import { ROOT_EMAIL, expect, signIn, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

/** Login audit events (EventID 110114) as user and outcome, newest first. */
async function logins(junction: E2EJunction): Promise<{ user: string; outcome: string }[]> {
  const filters = JSON.stringify({ 'eventIdentification.eventID.code': '110114' });
  const answer = await junction.api('GET', `/audits?filterRepresentation=full&filters=${encodeURIComponent(filters)}`);
  expect(answer.status).toBe(200);
  return (answer.json as { activeParticipant: { userID: string }[]; eventIdentification: { eventOutcomeIndicator: string } }[]).map((a) => ({
    user: a.activeParticipant[0]?.userID ?? '',
    outcome: a.eventIdentification.eventOutcomeIndicator,
  }));
}

test.describe('the sign-in page and the audit log', () => {
  test('opening the sign-in page writes no failed login; a wrong password does', async ({ page, junction }) => {
    await page.goto(`${junction.apiUrl}/`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    // Everything the page asks for at load (the session probe, the sign-in types, the browser's own icon request).
    await page.waitForLoadState('networkidle');
    await page.reload();
    await page.waitForLoadState('networkidle');
    expect((await logins(junction)).filter((l) => l.outcome !== '0')).toEqual([]);

    await signIn(page, junction, 'not-the-password');
    await expect(page.getByRole('alert')).toContainText('email or password is not right');
    expect((await logins(junction)).filter((l) => l.outcome !== '0')).toEqual([{ user: ROOT_EMAIL, outcome: '4' }]);
  });
});
