/**
 * One field of the mediator configuration form, for every config type (string, bigstring, bool, number, option,
 * map, struct, password) and lists of any of them. Errors come keyed by field path, the server's and the form's alike.
 */
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Button, Fieldset, Group, NumberInput, PasswordInput, Select, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import type { MediatorConfigDef } from '../../../../service/contracts/mediators';
import { draftId, newItem, PASSWORD_MASK } from './config-draft';
import type { ArrayDraft, Draft, MapDraft, Problems, StructDraft } from './config-draft';

interface FieldProps {
  def: MediatorConfigDef;
  draft: Draft;
  onChange: (draft: Draft) => void;
  /** Field path as the server names it without `body.` (`servers.0.port`). */
  path: string;
  errors: Problems;
  /** The label of a list item ("Servers 2"); otherwise the definition's name. */
  itemLabel?: string;
  /** Gets focus when it appears (a list item just added). */
  autoFocus?: boolean;
}

/** What people see as a parameter's name. */
export function defLabel(def: MediatorConfigDef): string {
  return def.displayName !== undefined && def.displayName.trim() !== '' ? def.displayName : def.param;
}

function FieldError({ error }: { error: string | undefined }) {
  if (error === undefined) return null;
  return (
    <Text c="red" size="sm">
      {error}
    </Text>
  );
}

export function ConfigField(props: FieldProps) {
  return props.def.array === true && props.itemLabel === undefined ? <ListField {...props} /> : <SingleField {...props} />;
}

function SingleField({ def, draft, onChange, path, errors, itemLabel, autoFocus }: FieldProps) {
  const label = itemLabel ?? defLabel(def);
  const description = itemLabel === undefined ? def.description : undefined;
  const error = errors[path];
  const text = typeof draft === 'string' ? draft : '';
  switch (def.type) {
    case 'string':
      return <TextInput label={label} description={description} error={error} value={text} onChange={(e) => onChange(e.currentTarget.value)} autoFocus={autoFocus} />;
    case 'bigstring':
      return <Textarea label={label} description={description} error={error} value={text} onChange={(e) => onChange(e.currentTarget.value)} autosize minRows={3} maxRows={12} autoFocus={autoFocus} />;
    case 'password': {
      const stored = draft === PASSWORD_MASK;
      const hint = stored ? 'A password is stored. Leave this as it is to keep it, or type a new one.' : undefined;
      return (
        <PasswordInput
          label={label}
          description={[description, hint].filter((d) => d !== undefined).join(' ') || undefined}
          error={error}
          value={text}
          autoComplete="new-password"
          // Typing into the mask would add to it; selecting it lets the first key replace it.
          onFocus={(e) => {
            if (e.currentTarget.value === PASSWORD_MASK) e.currentTarget.select();
          }}
          onChange={(e) => onChange(e.currentTarget.value)}
          autoFocus={autoFocus}
        />
      );
    }
    case 'number':
      return (
        <NumberInput
          label={label}
          description={description}
          error={error}
          value={typeof draft === 'number' || typeof draft === 'string' ? draft : ''}
          onChange={(value) => onChange(value === '' ? null : value)}
          autoFocus={autoFocus}
        />
      );
    case 'bool':
      return <Switch label={label} description={description} error={error} checked={draft === true} onChange={(e) => onChange(e.currentTarget.checked)} autoFocus={autoFocus} />;
    case 'option':
      return (
        <Select
          label={label}
          description={description}
          error={error}
          data={def.values ?? []}
          value={typeof draft === 'string' ? draft : null}
          onChange={(value) => onChange(value)}
          clearable={itemLabel === undefined}
          allowDeselect={false}
          placeholder="Not set"
          autoFocus={autoFocus}
        />
      );
    case 'map':
      return <MapField label={label} description={description} draft={draft as MapDraft} onChange={onChange} path={path} errors={errors} />;
    case 'struct':
      return <StructField def={def} label={label} description={description} draft={draft as StructDraft} onChange={onChange} path={path} errors={errors} />;
  }
}

function FieldGroup({ legend, description, error, children }: { legend: string; description?: string | undefined; error?: string | undefined; children: ReactNode }) {
  return (
    <Fieldset legend={legend} variant="filled" p="sm">
      <Stack gap="xs">
        {description === undefined ? null : (
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        )}
        {children}
        <FieldError error={error} />
      </Stack>
    </Fieldset>
  );
}

function StructField({ def, label, description, draft, onChange, path, errors }: { def: MediatorConfigDef; label: string; description: string | undefined; draft: StructDraft; onChange: (d: Draft) => void; path: string; errors: Problems }) {
  return (
    <FieldGroup legend={label} description={description} error={errors[path]}>
      {(def.template ?? []).map((field) => (
        <ConfigField
          key={field.param}
          def={field}
          draft={draft.fields[field.param] ?? null}
          onChange={(value) => onChange({ ...draft, fields: { ...draft.fields, [field.param]: value } })}
          path={`${path}.${field.param}`}
          errors={errors}
        />
      ))}
    </FieldGroup>
  );
}

function MapField({ label, description, draft, onChange, path, errors }: { label: string; description: string | undefined; draft: MapDraft; onChange: (d: Draft) => void; path: string; errors: Problems }) {
  const [added, setAdded] = useState<string | null>(null);
  const setRow = (id: string, change: { key?: string; value?: string }) => onChange({ ...draft, rows: draft.rows.map((r) => (r.id === id ? { ...r, ...change } : r)) });
  return (
    <FieldGroup legend={label} description={description} error={errors[path]}>
      {draft.rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No entries.
        </Text>
      ) : null}
      {draft.rows.length === 0 ? null : (
        // Column headings for sighted users; each input carries its own full label.
        <Group wrap="nowrap" gap="xs" aria-hidden>
          <Text size="sm" fw={500} style={{ flex: 1 }}>
            Key
          </Text>
          <Text size="sm" fw={500} style={{ flex: 2 }}>
            Value
          </Text>
          <div style={{ width: 86 }} />
        </Group>
      )}
      {draft.rows.map((row, i) => (
        <Group key={row.id} align="flex-start" wrap="nowrap" gap="xs">
          <TextInput
            aria-label={`${label}: key ${i + 1}`}
            placeholder="Key"
            value={row.key}
            onChange={(e) => setRow(row.id, { key: e.currentTarget.value })}
            error={errors[`${path}#${row.id}`] ?? errors[`${path}.${row.key}`]}
            autoFocus={row.id === added}
            style={{ flex: 1 }}
          />
          <TextInput aria-label={`${label}: value ${i + 1}`} placeholder="Value" value={row.value} onChange={(e) => setRow(row.id, { value: e.currentTarget.value })} style={{ flex: 2 }} />
          <Button variant="subtle" color="red" aria-label={`Remove ${label} entry ${i + 1}`} onClick={() => onChange({ ...draft, rows: draft.rows.filter((r) => r.id !== row.id) })}>
            Remove
          </Button>
        </Group>
      ))}
      <Group>
        <Button
          variant="light"
          size="xs"
          aria-label={`Add entry to ${label}`}
          onClick={() => {
            const id = draftId();
            setAdded(id);
            onChange({ ...draft, rows: [...draft.rows, { id, key: '', value: '' }] });
          }}
        >
          Add entry
        </Button>
      </Group>
    </FieldGroup>
  );
}

function ListField({ def, draft, onChange, path, errors }: FieldProps) {
  const [added, setAdded] = useState<string | null>(null);
  const label = defLabel(def);
  const list: ArrayDraft = draft !== null && typeof draft === 'object' && draft.kind === 'array' ? draft : { kind: 'array', items: [], wasSet: false };
  const nested = def.type === 'map' || def.type === 'struct';
  return (
    <FieldGroup legend={label} description={def.description} error={errors[path]}>
      {list.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          No items.
        </Text>
      ) : null}
      {list.items.map((item, i) => {
        const itemLabel = `${label} ${i + 1}`;
        const field = (
          <ConfigField
            def={def}
            draft={item.value}
            onChange={(value) => onChange({ ...list, items: list.items.map((it) => (it.id === item.id ? { ...it, value } : it)) })}
            path={`${path}.${i}`}
            errors={errors}
            itemLabel={itemLabel}
            autoFocus={item.id === added && !nested}
          />
        );
        const remove = (
          <Button variant="subtle" color="red" aria-label={`Remove ${itemLabel}`} onClick={() => onChange({ ...list, items: list.items.filter((it) => it.id !== item.id) })}>
            Remove
          </Button>
        );
        return nested ? (
          <Stack key={item.id} gap={4}>
            {field}
            <Group justify="flex-end">{remove}</Group>
          </Stack>
        ) : (
          <Group key={item.id} align="flex-start" wrap="nowrap" gap="xs">
            <div style={{ flex: 1, minWidth: 0 }}>{field}</div>
            <div style={{ paddingTop: def.type === 'bool' ? 0 : 24 }}>{remove}</div>
          </Group>
        );
      })}
      <Group>
        <Button
          variant="light"
          size="xs"
          aria-label={`Add item to ${label}`}
          onClick={() => {
            const id = draftId();
            setAdded(id);
            onChange({ ...list, wasSet: true, items: [...list.items, { id, origin: null, value: newItem(def) }] });
          }}
        >
          Add item
        </Button>
      </Group>
    </FieldGroup>
  );
}
