/**
 * Certificates (admins): the server certificate and its expiry, uploading a new certificate, key and passphrase
 * (served at once when they match; otherwise staged, with the reason), the trusted CAs, and generating a server or
 * client certificate whose key is offered once as a download.
 */
import { useCallback, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Anchor, Badge, Button, Card, Checkbox, Code, Group, NumberInput, PasswordInput, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import type { GeneratedCertificate, KeystoreUploadAnswer, KeystoreValidity, ServerCertificateInfo, TrustedCaInfo } from '../../../../service/contracts/keystore';
import { PageHeader } from '../../components/PageHeader';
import { ErrorAlert } from '../../components/ErrorAlert';
import { isAdmin, useSession } from '../../stores/session';
import { addTrustedCAs, generateCertificate, getServerCertificate, getValidity, listTrustedCAs, removeTrustedCA, uploadCertificate, uploadKey, uploadPassphrase } from '../../api/keystore';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Days left before a certificate ends, and the badge that says so. */
function ExpiryBadge({ end }: { end: string }) {
  const days = Math.floor((new Date(end).getTime() - Date.now()) / DAY_MS);
  const color = days < 0 ? 'red' : days <= 30 ? 'orange' : 'teal';
  const label = days < 0 ? 'Expired' : days === 0 ? 'Expires today' : `${days} day${days === 1 ? '' : 's'} left`;
  return (
    <Badge color={color} variant="light">
      {label}
    </Badge>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={180}>{label}</Table.Th>
      <Table.Td style={{ wordBreak: 'break-all' }}>{children}</Table.Td>
    </Table.Tr>
  );
}

/** What an upload answered, in words. */
function UploadOutcome({ answer }: { answer: KeystoreUploadAnswer | null }) {
  if (answer === null) return null;
  return answer.applied ? (
    <Alert color="teal" title="Now served" role="status">
      The new certificate is served on every port now; no restart is needed.
    </Alert>
  ) : (
    <Alert color="yellow" title="Not applied yet" role="status">
      {answer.warning}
    </Alert>
  );
}

/** A link that saves a text as a file. */
function Download({ name, text, children }: { name: string; text: string; children: ReactNode }) {
  const [href, setHref] = useState('');
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [text]);
  return (
    <Anchor href={href} download={name}>
      {children}
    </Anchor>
  );
}

export function CertificatesPage() {
  const admin = isAdmin(useSession((s) => s.user));
  const [server, setServer] = useState<ServerCertificateInfo | null>(null);
  const [cas, setCas] = useState<TrustedCaInfo[]>([]);
  const [validity, setValidity] = useState<KeystoreValidity | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [certText, setCertText] = useState('');
  const [keyText, setKeyText] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [uploaded, setUploaded] = useState<KeystoreUploadAnswer | null>(null);
  const [caText, setCaText] = useState('');
  const [caAnswer, setCaAnswer] = useState<string | null>(null);
  const [gen, setGen] = useState({ type: 'client' as 'server' | 'client', commonName: '', country: '', organization: '', days: 365, applyToServer: false, clientID: '' });
  const [generated, setGenerated] = useState<GeneratedCertificate | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const [s, c, v] = await Promise.all([getServerCertificate(), listTrustedCAs(), getValidity()]);
      setServer(s);
      setCas(c);
      setValidity(v);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);

  useEffect(() => {
    if (admin) void load();
  }, [admin, load]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setError(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
      await load();
    }
  };

  if (!admin) return <Alert color="gray">Only administrators can manage certificates.</Alert>;

  const uploadsOff = server?.watchFSForCert === true;

  return (
    <Stack>
      <PageHeader title="Certificates">
        <Button variant="default" onClick={() => void load()}>
          Refresh
        </Button>
      </PageHeader>
      <ErrorAlert error={error} action="manage the certificates" onClose={() => setError(null)} />

      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Server certificate
        </Title>
        {server === null ? null : (
          <Table aria-label="Server certificate">
            <Table.Tbody>
              <Row label="Common name">{server.commonName || '–'}</Row>
              <Row label="Issuer">{server.issuer}</Row>
              <Row label="Valid until">
                <Group gap="xs">
                  <span>{new Date(server.validity.end).toLocaleString()}</span>
                  <ExpiryBadge end={server.validity.end} />
                </Group>
              </Row>
              <Row label="Names">{server.subjectAltNames.join(', ') || '–'}</Row>
              <Row label="SHA-256 fingerprint">
                <Code data-testid="server-fingerprint">{server.fingerprint256}</Code>
              </Row>
              <Row label="Source">{server.source === 'configured' ? 'The file named by tls.certFile' : server.source === 'generated' ? 'Generated by Junction (self-signed)' : 'Uploaded'}</Row>
            </Table.Tbody>
          </Table>
        )}
        {validity !== null && validity.pending ? (
          <Alert color="yellow" mt="sm" title="An upload is waiting for the rest of its pair">
            {validity.reason ?? 'The staged certificate and key match.'}
          </Alert>
        ) : null}
      </Card>

      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Replace the server certificate
        </Title>
        {uploadsOff ? (
          <Text c="dimmed">The certificate comes from tls.certFile: replace that file and its key instead; Junction serves the new pair when the files change.</Text>
        ) : (
          <Stack>
            <Text size="sm" c="dimmed">
              Upload the certificate and its private key. Nothing changes until they match; then every port serves the new certificate at once.
            </Text>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <Stack gap="xs">
                <Textarea label="Certificate (PEM)" autosize minRows={4} maxRows={10} value={certText} onChange={(e) => setCertText(e.currentTarget.value)} styles={{ input: { fontFamily: 'monospace' } }} />
                <Button disabled={certText.trim() === '' || busy} onClick={() => void run(async () => setUploaded(await uploadCertificate(certText)))}>
                  Upload certificate
                </Button>
              </Stack>
              <Stack gap="xs">
                <Textarea label="Private key (PEM)" autosize minRows={4} maxRows={10} value={keyText} onChange={(e) => setKeyText(e.currentTarget.value)} styles={{ input: { fontFamily: 'monospace' } }} />
                <PasswordInput label="Key passphrase (if the key is encrypted)" value={passphrase} onChange={(e) => setPassphrase(e.currentTarget.value)} />
                <Group>
                  <Button disabled={keyText.trim() === '' || busy} onClick={() => void run(async () => setUploaded(await uploadKey(keyText, passphrase)))}>
                    Upload key
                  </Button>
                  <Button variant="default" disabled={passphrase === '' || busy} onClick={() => void run(async () => setUploaded(await uploadPassphrase(passphrase)))}>
                    Set passphrase only
                  </Button>
                </Group>
              </Stack>
            </SimpleGrid>
            <UploadOutcome answer={uploaded} />
          </Stack>
        )}
      </Card>

      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Trusted certificates
        </Title>
        <Text size="sm" c="dimmed" mb="xs">
          Client certificates issued by these are accepted on mutual TLS, and HTTPS routes to servers with such certificates are trusted. Changes apply at once.
        </Text>
        <Table aria-label="Trusted certificates">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Common name</Table.Th>
              <Table.Th>Organization</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>SHA-256</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {cas.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={5}>
                  <Text c="dimmed">No trusted certificates yet.</Text>
                </Table.Td>
              </Table.Tr>
            ) : (
              cas.map((ca) => (
                <Table.Tr key={ca._id}>
                  <Table.Td>{ca.commonName || '–'}</Table.Td>
                  <Table.Td>{ca.organization || '–'}</Table.Td>
                  <Table.Td>
                    <ExpiryBadge end={ca.validity.end} />
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    <Code>{ca.fingerprint256.slice(0, 23)}…</Code>
                  </Table.Td>
                  <Table.Td>
                    {ca.source === 'configured' ? (
                      <Text size="xs" c="dimmed">
                        from tls.trustedCAFiles
                      </Text>
                    ) : (
                      <Button size="xs" variant="subtle" color="red" aria-label={`Remove trusted certificate ${ca.commonName}`} disabled={busy} onClick={() => void run(() => removeTrustedCA(ca._id))}>
                        Remove
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))
            )}
          </Table.Tbody>
        </Table>
        <Stack gap="xs" mt="sm">
          <Textarea label="Add a CA certificate or chain (PEM)" autosize minRows={3} maxRows={8} value={caText} onChange={(e) => setCaText(e.currentTarget.value)} styles={{ input: { fontFamily: 'monospace' } }} />
          <Group>
            <Button
              disabled={caText.trim() === '' || busy}
              onClick={() =>
                void run(async () => {
                  const answer = await addTrustedCAs(caText);
                  setCaAnswer(`${answer.added.length} added${answer.skipped.length > 0 ? `, ${answer.skipped.length} already trusted` : ''}`);
                  setCaText('');
                })
              }
            >
              Add trusted certificates
            </Button>
            {caAnswer === null ? null : <Text size="sm">{caAnswer}</Text>}
          </Group>
        </Stack>
      </Card>

      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Generate a certificate
        </Title>
        <Stack gap="xs">
          <SegmentedControl
            aria-label="Certificate type"
            value={gen.type}
            onChange={(v) => setGen({ ...gen, type: v === 'server' ? 'server' : 'client' })}
            data={[
              { value: 'client', label: 'Client' },
              { value: 'server', label: 'Server' },
            ]}
          />
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <TextInput label="Common name" required description={gen.type === 'server' ? 'The host name clients use' : "The client's name or domain"} value={gen.commonName} onChange={(e) => setGen({ ...gen, commonName: e.currentTarget.value })} />
            <TextInput label="Country (two letters)" maxLength={2} value={gen.country} onChange={(e) => setGen({ ...gen, country: e.currentTarget.value })} />
            <TextInput label="Organization" value={gen.organization} onChange={(e) => setGen({ ...gen, organization: e.currentTarget.value })} />
            <NumberInput label="Valid for (days)" min={1} max={3650} value={gen.days} onChange={(v) => setGen({ ...gen, days: typeof v === 'number' ? v : 365 })} />
            {gen.type === 'client' ? (
              <TextInput label="Attach to client (clientID, optional)" value={gen.clientID} onChange={(e) => setGen({ ...gen, clientID: e.currentTarget.value })} />
            ) : (
              <Checkbox label="Serve it as Junction's certificate now" checked={gen.applyToServer} onChange={(e) => setGen({ ...gen, applyToServer: e.currentTarget.checked })} disabled={uploadsOff} />
            )}
          </SimpleGrid>
          <Group>
            <Button
              disabled={gen.commonName.trim() === '' || busy}
              onClick={() =>
                void run(async () => {
                  setGenerated(
                    await generateCertificate({
                      type: gen.type,
                      commonName: gen.commonName.trim(),
                      days: gen.days,
                      ...(gen.country === '' ? {} : { country: gen.country.toUpperCase() }),
                      ...(gen.organization === '' ? {} : { organization: gen.organization }),
                      ...(gen.type === 'server' && gen.applyToServer ? { applyToServer: true } : {}),
                      ...(gen.type === 'client' && gen.clientID.trim() !== '' ? { clientID: gen.clientID.trim() } : {}),
                    }),
                  );
                })
              }
            >
              Generate
            </Button>
          </Group>
          {generated === null ? null : (
            <Alert color="teal" title={`Generated ${generated.info.commonName}`} role="status">
              <Stack gap={4}>
                <Text size="sm">
                  Save the key now: it is shown only this once and Junction does not keep it{generated.applied === true ? ' (except as its own server key, sealed)' : ''}.
                  {generated.clientID === undefined ? '' : ` Attached to client ${generated.clientID}.`}
                </Text>
                <Group>
                  <Download name={`${generated.info.commonName}.cert.crt`} text={generated.certificate}>
                    Download certificate
                  </Download>
                  <Download name={`${generated.info.commonName}.key.pem`} text={generated.key}>
                    Download key
                  </Download>
                  <Button size="xs" variant="subtle" onClick={() => setGenerated(null)}>
                    Done, forget the key
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}
        </Stack>
      </Card>
    </Stack>
  );
}
