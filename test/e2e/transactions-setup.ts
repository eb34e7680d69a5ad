/**
 * Data for the dashboard and transactions console tests, made the way a clinic makes it: a real upstream HTTP server
 * on 127.0.0.1, a client with a basic-auth password, channels routed to the upstream (through the API), and real
 * requests on the HTTP transaction port.
 */
import { expect } from '@playwright/test';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import type { E2EJunction } from './fixtures.js';

export const LAB_CHANNEL = 'Lab results';
export const PHARMACY_CHANNEL = 'Pharmacy orders';
export const CLIENT_NAME = 'Lab system';

export const JSON_BODY = '{"patient":{"id":"123","name":"Thandi"},"results":[{"code":"HBA1C","value":6.1}]}';
export const XML_BODY = '<?xml version="1.0" encoding="UTF-8"?><order kind="lab"><patient id="123">Thandi</patient><test code="HBA1C"/></order>';
export const HL7_BODY = 'MSH|^~\\&|LAB|CLINIC|EHR|CLINIC|20240501101500||ORU^R01|MSG0001|P|2.5\rPID|1||123^^^CLINIC||Nkosi^Thandi\rOBX|1|NM|HBA1C^Haemoglobin A1c||6.1|%|||||F\r';

export interface LabSetup {
  labChannelId: string;
  pharmacyChannelId: string;
  clientId: string;
  /** Sends a request as the lab client and waits until its transaction is complete; returns its id. */
  send: (path: string, init?: { method?: string; body?: string; contentType?: string }) => Promise<string>;
  close: () => Promise<void>;
}

const CLIENT_PASSWORD = 'lab-client-pass-1';

/** What a mediator answers: the client's response, one orchestration (with an XML body) and two properties. */
function mediatorAnswer(): string {
  const timestamp = new Date().toISOString();
  return JSON.stringify({
    'x-mediator-urn': 'urn:mediator:lab-adapter',
    status: 'Successful',
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON_BODY, timestamp },
    orchestrations: [
      {
        name: 'Fetch patient',
        request: { path: '/patients/123', method: 'GET', querystring: 'full=true', headers: { accept: 'application/xml' }, timestamp },
        response: { status: 200, headers: { 'content-type': 'application/xml' }, body: XML_BODY, timestamp },
      },
    ],
    properties: { patient: '123', lab: 'central' },
  });
}

/** The upstream answers by path: JSON, XML, HL7 v2, a mediator's structured answer, a 500, or an echo. */
function upstream(): Promise<Upstream> {
  return httpUpstream((req, res) => {
    void readBody(req).then((text) => {
      const path = req.url ?? '';
      if (path.startsWith('/lab/xml')) {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(XML_BODY);
      } else if (path.startsWith('/lab/hl7')) {
        res.writeHead(200, { 'content-type': 'x-application/hl7-v2+er7' });
        res.end(HL7_BODY);
      } else if (path.startsWith('/lab/mediated')) {
        res.writeHead(200, { 'content-type': 'application/json+openhim' });
        res.end(mediatorAnswer());
      } else if (path.startsWith('/lab/fail')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"the lab system is down"}');
      } else if (path.startsWith('/lab/json')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON_BODY);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path, received: text.length }));
      }
    });
  });
}

async function created(junction: E2EJunction, path: string, body: unknown): Promise<string> {
  const res = await junction.api('POST', path, body);
  expect(res.status, `POST ${path}: ${res.text}`).toBe(201);
  return (res.json as { _id: string })._id;
}

export async function setupLab(junction: E2EJunction): Promise<LabSetup> {
  const server = await upstream();
  const route = (name: string, primary: boolean) => ({ name, host: '127.0.0.1', port: server.port, primary });
  const clientId = await created(junction, '/clients', { clientID: 'lab', name: CLIENT_NAME, roles: ['laboratory'], password: CLIENT_PASSWORD });
  const labChannelId = await created(junction, '/channels', {
    name: LAB_CHANNEL,
    urlPattern: '^/lab/.*$',
    allow: ['lab'],
    routes: [route('Lab server', true), route('Archive', false)],
  });
  const pharmacyChannelId = await created(junction, '/channels', { name: PHARMACY_CHANNEL, urlPattern: '^/pharmacy/.*$', allow: ['lab'], routes: [route('Pharmacy server', true)] });
  const authorization = `Basic ${Buffer.from(`lab:${CLIENT_PASSWORD}`).toString('base64')}`;

  async function send(path: string, init: { method?: string; body?: string; contentType?: string } = {}): Promise<string> {
    const response = await fetch(`${junction.httpUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization, ...(init.contentType === undefined ? {} : { 'content-type': init.contentType }) },
      body: init.body,
    });
    await response.arrayBuffer();
    const id = response.headers.get('x-openhim-transactionid');
    expect(id, `no transaction id for ${path} (${response.status})`).toMatch(/^[0-9a-f]{24}$/);
    const txId = id ?? '';
    await expect
      .poll(async () => ((await junction.api('GET', `/transactions/${txId}?filterRepresentation=simple`)).json as { status?: string } | null)?.status, {
        message: `transaction of ${path} completes`,
        intervals: [50, 100, 200],
      })
      .toMatch(/^(Successful|Failed|Completed|Completed with error\(s\))$/);
    return txId;
  }

  return { labChannelId, pharmacyChannelId, clientId, send, close: () => server.close() };
}
