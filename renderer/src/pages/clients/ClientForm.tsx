/**
 * Add or edit a client: who it is, the roles it holds, and the credentials it may authenticate with. Secrets are
 * write-only: the form shows whether each credential is set, and a new one replaces it.
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Code, CopyButton, Fieldset, FileButton, Group, SimpleGrid, Stack, TagsInput, Text, TextInput, Textarea } from '@mantine/core';
import type { ClientCreateInput, ClientUpdateInput, PublicClient } from '../../../../service/contracts/clients';
import { FormButtons } from '../../components/FormButtons';
import { PasswordPairFields } from '../../components/PasswordPairFields';
import { SaveProblems } from '../../components/SaveProblems';
import { useFormState } from '../../components/form-errors';
import { MIN_PASSWORD_LENGTH, MIN_TOKEN_LENGTH, generateToken, includesPrivateKey, readCertificateFile } from './credentials';

const DETAILS = ['organization', 'location', 'softwareName', 'description', 'contactPerson', 'contactPersonEmail'] as const;
type DetailField = (typeof DETAILS)[number];
const TEXT_FIELDS = ['clientDomain', ...DETAILS] as const;
type TextField = (typeof TEXT_FIELDS)[number];

const FIELDS = ['clientID', 'name', 'roles', 'password', 'certificate', 'certFingerprint', 'customTokenID', ...TEXT_FIELDS] as const;

// SHA-1 (OpenHIM's keystore) or SHA-256, as hex pairs with or without colons.
const FINGERPRINT = /^[0-9A-Fa-f]{2}(?::?[0-9A-Fa-f]{2}){19}$|^[0-9A-Fa-f]{2}(?::?[0-9A-Fa-f]{2}){31}$/;

const CLIENT_ID = /^[A-Za-z0-9._-]{1,100}$/;
const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.@-]{0,63}$/;

interface Values extends Record<TextField, string> {
  clientID: string;
  name: string;
  roles: string[];
  password: string;
  confirm: string;
  removePassword: boolean;
  certificate: string;
  /** A fingerprint to register the certificate by, instead of its PEM. */
  certFingerprint: string;
  removeCertificate: boolean;
  customTokenID: string;
  removeCustomToken: boolean;
}

function initialValues(client: PublicClient | null): Values {
  const values: Values = {
    clientID: client?.clientID ?? '',
    name: client?.name ?? '',
    roles: client?.roles ?? [],
    password: '',
    confirm: '',
    removePassword: false,
    certificate: '',
    certFingerprint: '',
    removeCertificate: false,
    customTokenID: '',
    removeCustomToken: false,
    clientDomain: '',
    organization: '',
    location: '',
    softwareName: '',
    description: '',
    contactPerson: '',
    contactPersonEmail: '',
  };
  for (const field of TEXT_FIELDS) values[field] = client?.[field] ?? '';
  return values;
}

/** Problems the browser can see before asking the server, by field. */
function localProblems(v: Values): Record<string, string> {
  const problems: Record<string, string> = {};
  const clientID = v.clientID.trim();
  if (clientID === '') problems.clientID = 'Enter a client ID';
  else if (!CLIENT_ID.test(clientID)) problems.clientID = 'Use up to 100 letters, digits, dots, dashes or underscores (no spaces)';
  if (v.name.trim() === '') problems.name = 'Enter a name';
  const badRole = v.roles.find((r) => !ROLE_NAME.test(r));
  if (badRole !== undefined) problems.roles = `"${badRole}" is not a valid role name: start with a letter or digit, then letters, digits, spaces or _ . @ -`;
  else if (v.roles.includes(clientID)) problems.roles = 'A role cannot have the same name as the client ID';
  if (!v.removePassword && (v.password !== '' || v.confirm !== '')) {
    if (v.password.length < MIN_PASSWORD_LENGTH) problems.password = `Use at least ${MIN_PASSWORD_LENGTH} characters`;
    if (v.confirm !== v.password) problems.confirm = 'The two passwords are different';
  }
  const fingerprint = v.certFingerprint.trim();
  if (!v.removeCertificate && fingerprint !== '' && !FINGERPRINT.test(fingerprint)) {
    problems.certFingerprint = 'Enter a SHA-1 or SHA-256 fingerprint: 20 or 32 pairs of hex digits, with or without colons';
  }
  if (!v.removeCustomToken && v.customTokenID !== '' && v.customTokenID.length < MIN_TOKEN_LENGTH) {
    problems.customTokenID = `Use at least ${MIN_TOKEN_LENGTH} characters, or generate one`;
  }
  return problems;
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

function createInput(v: Values): ClientCreateInput {
  const input: ClientCreateInput = { clientID: v.clientID.trim(), name: v.name.trim(), roles: v.roles };
  for (const field of TEXT_FIELDS) {
    const value = v[field].trim();
    if (value !== '') input[field] = value;
  }
  if (v.password !== '') input.password = v.password;
  if (v.certificate.trim() !== '') input.certificate = v.certificate.trim();
  else if (v.certFingerprint.trim() !== '') input.certFingerprint = v.certFingerprint.trim();
  if (v.customTokenID !== '') input.customTokenID = v.customTokenID;
  return input;
}

/** Only what changed, so an unchanged secret is never sent and a cleared field is removed. */
function updateInput(client: PublicClient, v: Values): ClientUpdateInput {
  const changes: ClientUpdateInput = {};
  if (v.clientID.trim() !== client.clientID) changes.clientID = v.clientID.trim();
  if (v.name.trim() !== client.name) changes.name = v.name.trim();
  if (!sameSet(v.roles, client.roles)) changes.roles = v.roles;
  for (const field of TEXT_FIELDS) {
    const value = v[field].trim();
    if (value !== (client[field] ?? '')) changes[field] = value === '' ? null : value;
  }
  if (v.removePassword) changes.password = null;
  else if (v.password !== '') changes.password = v.password;
  if (v.removeCertificate) changes.certificate = null;
  else if (v.certificate.trim() !== '') changes.certificate = v.certificate.trim();
  else if (v.certFingerprint.trim() !== '') changes.certFingerprint = v.certFingerprint.trim();
  if (v.removeCustomToken) changes.customTokenID = null;
  else if (v.customTokenID !== '') changes.customTokenID = v.customTokenID;
  return changes;
}

export interface ClientFormProps {
  /** null adds a new client. */
  client: PublicClient | null;
  roleSuggestions: string[];
  save: (client: PublicClient | null, input: ClientCreateInput | ClientUpdateInput) => Promise<PublicClient>;
  /** `token` is a custom token set by this save, to be shown once. */
  onSaved: (client: PublicClient, token: string | null) => void;
  onCancel: () => void;
}

const LABELS: Record<DetailField, string> = {
  organization: 'Organisation',
  location: 'Location',
  softwareName: 'Software',
  description: 'Description',
  contactPerson: 'Contact person',
  contactPersonEmail: 'Contact email',
};

export function ClientForm({ client, roleSuggestions, save, onSaved, onCancel }: ClientFormProps) {
  const editing = client !== null;
  const { values, set, text, fieldError, server, form, busy, check, saving } = useFormState<Values>(() => initialValues(client), FIELDS);
  const [fileError, setFileError] = useState<string | null>(null);

  const loadFile = (file: File | null) => {
    setFileError(null);
    if (file === null) return;
    readCertificateFile(file).then(
      (pem) => set('certificate', pem),
      (err: unknown) => setFileError(err instanceof Error ? err.message : String(err)),
    );
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!check(localProblems(values))) return;
    const input = client === null ? createInput(values) : updateInput(client, values);
    if (Object.keys(input).length === 0) {
      onCancel();
      return;
    }
    const token = 'customTokenID' in input && typeof input.customTokenID === 'string' ? input.customTokenID : null;
    saving(
      () => save(client, input),
      (saved) => onSaved(saved, token),
    );
  };

  const cnMismatch =
    client?.certificateSubjectCN !== undefined && client.clientDomain !== undefined && client.certificateSubjectCN !== client.clientDomain && !values.removeCertificate;

  return (
    <form onSubmit={submit} aria-label={editing ? `Edit client ${client.clientID}` : 'New client'} noValidate ref={form}>
      <Stack>
        <SaveProblems server={server} action="save the client" title="The client was not saved" />

        <SimpleGrid cols={2}>
          <TextInput
            label="Client ID"
            description="Used in channel access lists; letters, digits, . _ -"
            required
            value={values.clientID}
            onChange={text('clientID')}
            error={fieldError('clientID')}
            autoComplete="off"
            data-autofocus
          />
          <TextInput label="Name" description="A name people recognise" required value={values.name} onChange={text('name')} error={fieldError('name')} autoComplete="off" />
          <TextInput
            label="Domain"
            description="Must equal the certificate's common name (CN) when the client uses a certificate"
            value={values.clientDomain}
            onChange={text('clientDomain')}
            error={fieldError('clientDomain')}
            autoComplete="off"
          />
          <TagsInput
            label="Roles"
            description="Pick a role, or type a new name and press Enter to create it"
            data={roleSuggestions}
            value={values.roles}
            onChange={(roles) => set('roles', roles)}
            error={fieldError('roles')}
            clearable
            acceptValueOnBlur
          />
        </SimpleGrid>

        {!editing && (
          <Text size="sm" c="dimmed">
            A client proves who it is with a password, a certificate or a custom token (clients that use JSON Web Tokens need none of these). Set at least the
            ones your server has turned on.
          </Text>
        )}
        <Fieldset legend="Basic auth password">
          <Stack gap="xs">
            {editing && (
              <Text size="sm" c="dimmed">
                {client.hasPassword ? 'A password is set. Type a new one to replace it, or leave these empty to keep it.' : 'No password is set.'}
              </Text>
            )}
            <PasswordPairFields
              password={values.password}
              confirm={values.confirm}
              onPasswordChange={(value) => set('password', value)}
              onConfirmChange={(value) => set('confirm', value)}
              descriptions={{ password: `At least ${MIN_PASSWORD_LENGTH} characters`, confirm: 'Type it again' }}
              errors={{ password: fieldError('password'), confirm: fieldError('confirm') }}
              disabled={values.removePassword}
            />
            {editing && client.hasPassword && (
              <Checkbox label="Remove the password" checked={values.removePassword} onChange={(e) => set('removePassword', e.currentTarget.checked)} />
            )}
          </Stack>
        </Fieldset>

        <Fieldset legend="Certificate (mutual TLS)">
          <Stack gap="xs">
            {editing &&
              (client.certFingerprint !== undefined ? (
                <Stack gap={4}>
                  <Text size="sm">
                    Registered certificate{client.certificateSubjectCN !== undefined ? <> for CN <Code>{client.certificateSubjectCN}</Code></> : null}
                  </Text>
                  <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    Fingerprint: <Code>{client.certFingerprint}</Code>
                  </Text>
                  {cnMismatch && (
                    <Alert color="yellow" title="Domain and certificate differ">
                      The certificate is for {client.certificateSubjectCN} but the client&apos;s domain is {client.clientDomain}: mutual TLS will refuse this client until they match.
                    </Alert>
                  )}
                </Stack>
              ) : (
                <Text size="sm" c="dimmed">
                  No certificate is registered.
                </Text>
              ))}
            <Group gap="xs">
              <FileButton onChange={loadFile} accept=".pem,.crt,.cer,.der,application/x-pem-file,application/x-x509-ca-cert">
                {(props) => (
                  <Button {...props} variant="default" size="xs" disabled={values.removeCertificate}>
                    Load certificate file…
                  </Button>
                )}
              </FileButton>
              {values.certificate !== '' && !values.removeCertificate && (
                <Button variant="subtle" size="xs" onClick={() => set('certificate', '')}>
                  Clear
                </Button>
              )}
            </Group>
            {fileError !== null && (
              <Text size="sm" c="red" role="alert">
                {fileError}
              </Text>
            )}
            <Textarea
              label="Certificate (PEM)"
              description={editing && client.certFingerprint !== undefined ? 'Paste or load a new certificate to replace the registered one; leave empty to keep it' : 'Paste the client certificate, or load it from a file'}
              placeholder="-----BEGIN CERTIFICATE-----"
              value={values.certificate}
              onChange={text('certificate')}
              error={fieldError('certificate')}
              disabled={values.removeCertificate}
              autosize
              minRows={3}
              maxRows={8}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
            />
            <TextInput
              label="Or the certificate's fingerprint"
              description="SHA-1 or SHA-256, as OpenHIM's keystore or openssl x509 -fingerprint shows it; used when no PEM is given"
              value={values.certFingerprint}
              onChange={text('certFingerprint')}
              error={fieldError('certFingerprint')}
              disabled={values.removeCertificate || values.certificate.trim() !== ''}
              autoComplete="off"
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
            {includesPrivateKey(values.certificate) && (
              <Text size="sm" c="orange">
                This text includes a private key. Junction keeps only the certificate; the key stays with the client system.
              </Text>
            )}
            {editing && client.certFingerprint !== undefined && (
              <Checkbox label="Remove the certificate" checked={values.removeCertificate} onChange={(e) => set('removeCertificate', e.currentTarget.checked)} />
            )}
          </Stack>
        </Fieldset>

        <Fieldset legend="Custom token">
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              {editing && client.customTokenSet ? 'A custom token is set. Junction keeps only a fingerprint of it, so it cannot be shown again; set a new one to replace it. ' : ''}
              The client sends it as <Code>Authorization: Custom &lt;token&gt;</Code>.
            </Text>
            <Group align="flex-end" wrap="nowrap">
              <TextInput
                label="Custom token"
                description={`At least ${MIN_TOKEN_LENGTH} characters; copy it now, it is shown only until you save`}
                value={values.customTokenID}
                onChange={text('customTokenID')}
                error={fieldError('customTokenID')}
                disabled={values.removeCustomToken}
                autoComplete="off"
                style={{ flex: 1 }}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              />
              <Button variant="default" onClick={() => set('customTokenID', generateToken())} disabled={values.removeCustomToken}>
                Generate token
              </Button>
              <CopyButton value={values.customTokenID}>
                {({ copied, copy }) => (
                  <Button variant="subtle" onClick={copy} disabled={values.customTokenID === ''}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
            {editing && client.customTokenSet && (
              <Checkbox label="Remove the custom token" checked={values.removeCustomToken} onChange={(e) => set('removeCustomToken', e.currentTarget.checked)} />
            )}
          </Stack>
        </Fieldset>

        <Fieldset legend="About this client (optional)">
          <SimpleGrid cols={2}>
            {DETAILS.map((field) =>
              field === 'description' ? null : (
                <TextInput
                  key={field}
                  label={LABELS[field]}
                  type={field === 'contactPersonEmail' ? 'email' : 'text'}
                  value={values[field]}
                  onChange={text(field)}
                  error={fieldError(field)}
                  autoComplete="off"
                />
              ),
            )}
          </SimpleGrid>
          <Textarea label={LABELS.description} mt="sm" value={values.description} onChange={text('description')} error={fieldError('description')} autosize minRows={2} maxRows={5} />
        </Fieldset>

        {editing && (
          <Group gap="xs">
            <Text size="sm">Credentials now:</Text>
            <CredentialBadges client={client} />
          </Group>
        )}
        <FormButtons submitLabel="Save client" busy={busy} onCancel={onCancel} />
      </Stack>
    </form>
  );
}

/** Which credentials a client has, as words (never the secrets). */
export function CredentialBadges({ client }: { client: PublicClient }) {
  const set = [client.hasPassword && 'Password', client.certFingerprint !== undefined && 'Certificate', client.customTokenSet && 'Custom token'].filter(
    (x): x is string => typeof x === 'string',
  );
  if (set.length === 0) {
    return (
      <Badge color="gray" variant="outline">
        None
      </Badge>
    );
  }
  return (
    <Group gap={4}>
      {set.map((name) => (
        <Badge key={name} variant="light">
          {name}
        </Badge>
      ))}
    </Group>
  );
}
