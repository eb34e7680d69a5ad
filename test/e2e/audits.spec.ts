/**
 * The Audit log page against the real audits API: audits posted as RFC 3881 shaped JSON, listed newest first, filtered
 * by event ID and patient ID (the filters kept in the address), one opened with its raw message's XML laid out, and
 * the filtered list exported.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

const PATIENT_RECORD = { code: '110110', displayName: 'Patient Record', codeSystemName: 'DCM' };
const QUERY = { code: '110112', displayName: 'Query', codeSystemName: 'DCM' };

function minutesAgo(minutes: number): string {
  return new Date(Date.now() - minutes * 60_000).toISOString();
}

function patientAccess(minutes: number, user: string, patientCx: string) {
  return {
    eventIdentification: {
      eventDateTime: minutesAgo(minutes),
      eventActionCode: 'R',
      eventOutcomeIndicator: '0',
      eventID: PATIENT_RECORD,
      eventTypeCode: { code: 'ITI-9', displayName: 'PIX Query', codeSystemName: 'IHE Transactions' },
    },
    activeParticipant: [
      { userID: 'pix-manager', userIsRequestor: 'false', networkAccessPointID: '10.0.0.2', networkAccessPointTypeCode: '2' },
      { userID: user, userIsRequestor: 'true', networkAccessPointID: '10.0.0.9', networkAccessPointTypeCode: '2', roleIDCode: { code: '110153', displayName: 'Source' } },
    ],
    auditSourceIdentification: { auditSourceID: 'EHR-WARD-3' },
    participantObjectIdentification: [
      { participantObjectID: patientCx, participantObjectTypeCode: '1', participantObjectTypeCodeRole: '1', participantObjectIDTypeCode: { code: '2', displayName: 'Patient Number' } },
    ],
  };
}

const RAW_XML =
  '<?xml version="1.0" encoding="UTF-8"?><AuditMessage><EventIdentification EventActionCode="E" EventDateTime="2026-11-24T09:00:00Z" EventOutcomeIndicator="8">' +
  '<EventID csd-code="110112" codeSystemName="DCM" originalText="Query"/></EventIdentification>' +
  '<ActiveParticipant UserID="lab-gateway" UserIsRequestor="true"/><AuditSourceIdentification AuditSourceID="LAB-1"/></AuditMessage>';
const RAW_MESSAGE = `<85>1 2026-11-24T09:00:00Z lab-host lab-gateway 4242 IHE+RFC-3881 - ${RAW_XML}`;

async function post(junction: E2EJunction, audit: unknown): Promise<void> {
  const res = await junction.api('POST', '/audits', audit);
  expect(res.status, res.text).toBe(201);
}

/** Picks an option of a Mantine Select by its label. */
async function choose(page: Page, label: string, option: string | RegExp): Promise<void> {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option }).click();
}

function table(page: Page) {
  return page.getByRole('table', { name: 'Audits' });
}

test('the audit log lists, filters, shows an audit with its XML laid out, and exports', async ({ console: page, junction }, testInfo) => {
  await post(junction, patientAccess(30, 'dr.mensah', '4567-89^^^Clinic&1.2.840.1&ISO'));
  await post(junction, patientAccess(20, 'nurse.ann', '9999^^^Clinic&1.2.840.1&ISO'));
  const query = {
    rawMessage: RAW_MESSAGE,
    syslog: { prival: 85, facilityID: 10, severityID: 5, facility: 'sec', severity: 'notice', type: 'RFC5424', time: '2026-11-24T09:00:00Z', host: 'lab-host', appName: 'lab-gateway', pid: '4242', msgID: 'IHE+RFC-3881' },
    eventIdentification: { eventDateTime: minutesAgo(10), eventActionCode: 'E', eventOutcomeIndicator: '8', eventID: QUERY },
    activeParticipant: [{ userID: 'lab-gateway', userIsRequestor: 'true' }],
    auditSourceIdentification: { auditSourceID: 'LAB-1' },
    participantObjectIdentification: [],
  };
  await post(junction, query);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible();
  // Newest first (Junction's own sign-in and start events are newer still): the query, then the two record accesses.
  const rows = table(page).locator('tbody tr');
  const posted = rows.filter({ hasText: /Patient Record|Query \(110112\)/ });
  await expect(posted).toHaveCount(3);
  await expect(posted.nth(0)).toContainText('Serious failure');
  await expect(posted.nth(0)).toContainText('Execute');
  await expect(posted.nth(0)).toContainText('lab-gateway');
  await expect(posted.nth(1)).toContainText('nurse.ann');
  await expect(posted.nth(2)).toContainText('dr.mensah');
  await expect(posted.nth(2)).toContainText('4567-89^^^Clinic&1.2.840.1&ISO');
  await expect(posted.nth(2)).toContainText('Read');
  await expect(posted.nth(2)).toContainText('EHR-WARD-3');
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'audits-list');

  // Event ID from the list the repository has seen; the filter goes into the address and survives a reload.
  await choose(page, 'Event', /^Patient Record \(110110\)/);
  await expect(page).toHaveURL(/[?&]event=110110/);
  await expect(rows).toHaveCount(2);
  await page.reload();
  await expect(rows).toHaveCount(2);
  await expect(page.getByRole('combobox', { name: 'Event', exact: true })).toHaveValue(/Patient Record \(110110\)/);

  // Patient ID with its assigning authority, as OpenHIM's console builds the pattern; a wrong authority finds nothing.
  await page.getByRole('textbox', { name: 'Patient ID' }).fill('4567-89');
  await page.getByRole('textbox', { name: 'Assigning authority' }).fill('Clinic');
  await page.getByRole('textbox', { name: 'Authority ID' }).fill('1.2.840.1');
  await page.getByRole('textbox', { name: 'Authority ID' }).press('Enter');
  await expect(page).toHaveURL(/[?&]patient=4567-89/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('dr.mensah');
  await page.getByRole('textbox', { name: 'Authority ID' }).fill('1.2.840.2');
  await page.getByRole('textbox', { name: 'Authority ID' }).press('Enter');
  await expect(page.getByText('No audits match these filters.')).toBeVisible();
  await page.getByRole('textbox', { name: 'Authority ID' }).fill('');
  await page.getByRole('textbox', { name: 'Authority ID' }).press('Enter');
  await expect(rows).toHaveCount(1);
  // OpenHIM's rule on the patient ID's characters, said beside the field.
  await page.getByRole('textbox', { name: 'Patient ID' }).fill('45.67');
  await expect(page.getByText('Special characters (except for hyphens(-)) not allowed in PatientID filter field')).toBeVisible();
  await page.getByRole('textbox', { name: 'Patient ID' }).fill('4567-89');
  await page.getByRole('textbox', { name: 'Patient ID' }).press('Enter');

  // Export of the filtered list: only the one match.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const file = await download;
  await expect(page.getByRole('status').filter({ hasText: 'Export complete' })).toBeVisible();
  const text = (await readFile(await file.path(), 'utf8')).trim();
  const exported = (text.startsWith('[') ? (JSON.parse(text) as unknown[]) : text.split('\n').map((line) => JSON.parse(line) as unknown)) as { activeParticipant: { userID: string }[] }[];
  expect(exported).toHaveLength(1);
  expect(exported[0]?.activeParticipant.map((p) => p.userID)).toContain('dr.mensah');

  // The detail: readable sections; a JSON-posted audit has no raw message.
  await rows.first().getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Audit' })).toBeVisible();
  const participants = page.getByRole('table', { name: 'Active participants' });
  await expect(participants.getByRole('row', { name: /dr\.mensah/ })).toContainText('Yes');
  await expect(participants.getByRole('row', { name: /dr\.mensah/ })).toContainText('Source (110153)');
  await expect(page.getByRole('region', { name: 'Participant objects (1)' })).toContainText('Patient (1)');
  await expect(page.getByRole('region', { name: 'Raw message' })).toContainText('No raw message');
  await page.getByRole('link', { name: 'Back to the audit log' }).click();
  await expect(page).toHaveURL(/[?&]patient=4567-89/);

  // The audit received with a raw message: syslog header, and its XML indented, as text.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await choose(page, 'Event', /^Query \(110112\)/);
  await expect(rows).toHaveCount(1);
  await rows.first().getByRole('link').click();
  const syslog = page.getByRole('region', { name: 'Syslog header' });
  await expect(syslog).toContainText('RFC5424');
  await expect(syslog).toContainText('lab-host');
  await expect(syslog).toContainText('sec (10)');
  const raw = page.getByRole('region', { name: 'Raw message' }).locator('pre');
  const laidOut = await raw.innerText();
  expect(laidOut.split('\n').slice(0, 4)).toEqual([
    '<85>1 2026-11-24T09:00:00Z lab-host lab-gateway 4242 IHE+RFC-3881 -',
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<AuditMessage>',
    '  <EventIdentification EventActionCode="E" EventDateTime="2026-11-24T09:00:00Z" EventOutcomeIndicator="8">',
  ]);
  expect(laidOut).toContain('    <EventID csd-code="110112" codeSystemName="DCM" originalText="Query"/>');
  // Shown as text: no element of the message became part of the page.
  expect(await page.locator('auditmessage, AuditMessage').count()).toBe(0);
  await page.getByRole('region', { name: 'Raw message' }).getByText('As received', { exact: true }).click();
  await expect(page.getByRole('radio', { name: 'As received' })).toBeChecked();
  await expect(raw).toHaveText(RAW_MESSAGE);
  await expect(page.getByRole('button', { name: 'Copy the raw message' })).toBeVisible();
  await expectNoHorizontalScroll(page);
  await shot(page, testInfo, 'audit-detail');
});
