/**
 * Import/Export (admins): download the configuration as a file, with secrets sealed under a passphrase if asked; and
 * import such a file in two steps, as OpenHIM's console does: check it first, choose per record what to do with those
 * that already exist (ignore, overwrite, or import as a copy under a new name), then import and see each result.
 */
import { useState } from 'react';
import type { ChangeEvent } from 'react';
import { Alert, Badge, Button, Checkbox, Group, NativeSelect, PasswordInput, Stack, Table, Text, TextInput } from '@mantine/core';
import type { MetadataResult, MetadataStatus } from '../../../../service/contracts/metadata';
import { downloadExport, runImport, validateImport } from '../../api/metadata';
import type { MetadataBody } from '../../api/metadata';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { Section } from '../../components/Section';
import { isAdmin, useSession } from '../../stores/session';
import { hasSealedSecrets, importBody, modelLabel, newNameProblem, planFrom, readExportFile } from './import-plan';
import type { Choice, PlanItem } from './import-plan';

const MIN_PASSPHRASE = 10;

const STATUS_COLOR: Record<MetadataStatus, string> = { Valid: 'green', Conflict: 'yellow', Inserted: 'green', Updated: 'blue', Error: 'red' };
const STATUS_WORDS: Record<MetadataStatus, string> = { Valid: 'New', Conflict: 'Already exists', Inserted: 'Added', Updated: 'Overwritten', Error: 'Cannot import' };

function StatusBadge({ status }: { status: MetadataStatus }) {
  return (
    <Badge color={STATUS_COLOR[status]} variant="light">
      {STATUS_WORDS[status]}
    </Badge>
  );
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function saveFile(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function ExportSection() {
  const [withSecrets, setWithSecrets] = useState(false);
  const [passphrase, setPassphrase] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const short = withSecrets && passphrase.length < MIN_PASSPHRASE;
  const differs = withSecrets && repeat !== passphrase;

  const run = async () => {
    setDone(false);
    setError(null);
    if (short || differs) return;
    setBusy(true);
    try {
      saveFile(await downloadExport(withSecrets ? passphrase : undefined), `junction-export-${today()}${withSecrets ? '-with-secrets' : ''}.json`);
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Export">
      <Stack gap="sm" maw={560}>
        <Text size="sm">
          Downloads channels, clients, users, contact groups, mediators and certificates as one file, to keep as a record or to set up another Junction. Passwords,
          password hashes, tokens and the server's private key are left out unless you include them below.
        </Text>
        <Checkbox label="Include secrets, encrypted with a passphrase" checked={withSecrets} onChange={(e) => setWithSecrets(e.currentTarget.checked)} />
        {withSecrets ? (
          <>
            <PasswordInput
              label="Passphrase"
              description={`At least ${MIN_PASSPHRASE} characters. Keep it safe: the secrets in the file cannot be read without it.`}
              value={passphrase}
              onChange={(e) => setPassphrase(e.currentTarget.value)}
              error={short && passphrase !== '' ? `Use at least ${MIN_PASSPHRASE} characters` : undefined}
            />
            <PasswordInput label="Repeat the passphrase" value={repeat} onChange={(e) => setRepeat(e.currentTarget.value)} error={differs && repeat !== '' ? 'The two passphrases differ' : undefined} />
          </>
        ) : null}
        <Group>
          <Button onClick={() => void run()} loading={busy} disabled={short || differs}>
            Download export
          </Button>
        </Group>
        {done ? (
          <Alert color="green" role="status">
            The export was downloaded.
          </Alert>
        ) : null}
        <ErrorAlert error={error} action="export the configuration" />
      </Stack>
    </Section>
  );
}

function ChoiceCell({ item, items, onChange }: { item: PlanItem; items: readonly PlanItem[]; onChange: (changes: Partial<PlanItem>) => void }) {
  const label = `${modelLabel(item.model)} ${item.uid}`;
  if (item.check.status === 'Error') return <Text size="sm">{item.check.message}</Text>;
  const options: { value: Choice; label: string }[] =
    item.check.status === 'Conflict'
      ? [
          { value: 'ignore', label: 'Keep the existing one' },
          { value: 'overwrite', label: 'Overwrite it' },
          { value: 'duplicate', label: 'Import as a copy' },
        ]
      : [
          { value: 'import', label: 'Import' },
          { value: 'skip', label: 'Leave out' },
        ];
  return (
    <Stack gap={4}>
      <NativeSelect aria-label={`What to do with ${label}`} data={options} value={item.choice} onChange={(e) => onChange({ choice: e.currentTarget.value as Choice })} />
      {item.choice === 'duplicate' ? (
        <TextInput aria-label={`New name for the copy of ${label}`} placeholder="New name" value={item.newName} onChange={(e) => onChange({ newName: e.currentTarget.value })} error={item.newName === '' ? undefined : newNameProblem(item, items)} />
      ) : null}
    </Stack>
  );
}

function ResultsTable({ results }: { results: readonly MetadataResult[] }) {
  return (
    <Table aria-label="Import results" striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Record</Table.Th>
          <Table.Th>Result</Table.Th>
          <Table.Th>Details</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {results.map((r, i) => (
          <Table.Tr key={i}>
            <Table.Td>
              {modelLabel(r.model)} <b>{r.uid}</b>
            </Table.Td>
            <Table.Td>
              <StatusBadge status={r.status} />
            </Table.Td>
            <Table.Td>{r.message}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function ImportSection() {
  const [body, setBody] = useState<MetadataBody | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const [items, setItems] = useState<PlanItem[] | null>(null);
  const [results, setResults] = useState<MetadataResult[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const sealed = body !== null && hasSealedSecrets(body);

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    setBody(null);
    setItems(null);
    setResults(null);
    setError(null);
    setFileError(null);
    const file = event.currentTarget.files?.[0];
    if (file === undefined) return;
    try {
      setBody(readExportFile(await file.text()));
    } catch (err) {
      setFileError((err as Error).message);
    }
  };

  const check = async () => {
    if (body === null) return;
    setBusy(true);
    setError(null);
    setResults(null);
    try {
      setItems(planFrom(body, await validateImport(body, sealed ? passphrase : undefined)));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const update = (key: string, changes: Partial<PlanItem>) => setItems((all) => all?.map((i) => (i.key === key ? { ...i, ...changes } : i)) ?? null);
  const blocked = items?.some((i) => newNameProblem(i, items) !== null) ?? true;
  const chosen = items === null ? 0 : Object.values(importBody(items)).reduce((n, docs) => n + docs.length, 0);

  const run = async () => {
    if (items === null || blocked) return;
    setBusy(true);
    setError(null);
    try {
      setResults(await runImport(importBody(items), sealed ? passphrase : undefined));
      setItems(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const failed = results?.filter((r) => r.status === 'Error').length ?? 0;
  return (
    <Section title="Import">
      <Stack gap="sm">
        <Text size="sm" maw={560}>
          Choose a file exported from Junction (or OpenHIM). It is checked first; nothing changes until you choose what to import.
        </Text>
        <label>
          <Text size="sm" fw={500} component="span" display="block" mb={4}>
            Export file
          </Text>
          <input type="file" accept="application/json,.json" aria-label="Export file" onChange={(e) => void choose(e)} />
        </label>
        {fileError === null ? null : (
          <Alert color="red" role="alert">
            {fileError}
          </Alert>
        )}
        {sealed ? (
          <PasswordInput maw={560} label="Passphrase of the export" description="The file holds encrypted secrets; give the passphrase it was exported with." value={passphrase} onChange={(e) => setPassphrase(e.currentTarget.value)} />
        ) : null}
        {body !== null && items === null ? (
          <Group>
            <Button onClick={() => void check()} loading={busy} disabled={sealed && passphrase === ''}>
              Check file
            </Button>
          </Group>
        ) : null}
        <ErrorAlert error={error} action="import the configuration" />
        {items === null ? null : (
          <>
            <Table aria-label="Records in the file" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Record</Table.Th>
                  <Table.Th>Check</Table.Th>
                  <Table.Th>What to do</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((item) => (
                  <Table.Tr key={item.key}>
                    <Table.Td>
                      {modelLabel(item.model)} <b>{item.uid}</b>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={item.check.status} />
                    </Table.Td>
                    <Table.Td>
                      <ChoiceCell item={item} items={items} onChange={(changes) => update(item.key, changes)} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Group>
              <Button onClick={() => void run()} loading={busy} disabled={blocked || chosen === 0}>
                {`Import ${chosen} ${chosen === 1 ? 'record' : 'records'}`}
              </Button>
            </Group>
          </>
        )}
        {results === null ? null : (
          <>
            <Alert color={failed === 0 ? 'green' : 'yellow'} role="status">
              {`${results.length - failed} imported${failed === 0 ? '' : `, ${failed} could not be imported`}.`}
            </Alert>
            <ResultsTable results={results} />
          </>
        )}
      </Stack>
    </Section>
  );
}

export function ImportExportPage() {
  const admin = isAdmin(useSession((s) => s.user));
  return (
    <>
      <PageHeader title="Import/Export" />
      {admin ? (
        <Stack gap="lg">
          <ExportSection />
          <ImportSection />
        </Stack>
      ) : (
        <Alert color="yellow">Only administrators can export or import the configuration.</Alert>
      )}
    </>
  );
}
