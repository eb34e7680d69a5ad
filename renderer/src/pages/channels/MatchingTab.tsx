/** Which requests the channel takes beyond its URL pattern: methods, content types, and a check on the body. */
import { Checkbox, Group, Radio, SimpleGrid, Stack, TagsInput, TextInput } from '@mantine/core';
import { HTTP_METHODS } from './form';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';

const CONTENT_TYPES = ['application/json', 'application/fhir+json', 'application/xml', 'application/fhir+xml', 'text/xml', 'text/plain', 'application/hl7-v2'];

const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

export function MatchingTab({ form, update, errors }: TabProps) {
  return (
    <Stack>
      <Checkbox.Group
        id={fieldId('methods')}
        label="Methods"
        description="Only requests with a ticked method match. None ticked: every method."
        value={form.methods}
        onChange={(methods) => update({ methods: HTTP_METHODS.filter((m) => methods.includes(m)) })}
        error={errors.within('methods', (i) => form.methods[i] ?? 'A method')}
      >
        <Group mt="xs">
          {HTTP_METHODS.map((method) => (
            <Checkbox key={method} value={method} label={method} />
          ))}
        </Group>
      </Checkbox.Group>
      <TagsInput
        id={fieldId('matchContentTypes')}
        label="Content types"
        description="Only requests with one of these Content-Type values match. Empty: any content type."
        data={CONTENT_TYPES}
        value={form.matchContentTypes}
        onChange={(matchContentTypes) => update({ matchContentTypes })}
        error={errors.within('matchContentTypes', (i) => `“${form.matchContentTypes[i] ?? ''}”`)}
        clearable
      />
      <Radio.Group
        label="Match the request body"
        description="The body is read into memory before routing only when this is on."
        value={form.matchMode}
        onChange={(v) => update({ matchMode: v })}
      >
        <Group mt="xs">
          <Radio value="none" label="No matching" />
          <Radio value="regex" label="Regular expression" />
          <Radio value="xml" label="XML: XPath and value" />
          <Radio value="json" label="JSON: property and value" />
        </Group>
      </Radio.Group>
      {form.matchMode === 'regex' && (
        <TextInput
          label="Body regular expression"
          required
          description="The body must contain a match, for example <ADT_A01 or &quot;resourceType&quot;:&quot;Patient&quot;."
          value={form.matchContentRegex}
          onChange={(e) => update({ matchContentRegex: e.currentTarget.value })}
          styles={MONO}
          {...bind(errors, 'matchContentRegex')}
        />
      )}
      {(form.matchMode === 'xml' || form.matchMode === 'json') && (
        <SimpleGrid cols={2}>
          {form.matchMode === 'xml' ? (
            <TextInput
              label="XPath"
              required
              description="For example /Patient/gender/@value"
              value={form.matchContentXpath}
              onChange={(e) => update({ matchContentXpath: e.currentTarget.value })}
              styles={MONO}
              {...bind(errors, 'matchContentXpath')}
            />
          ) : (
            <TextInput
              label="JSON property"
              required
              description="A dotted path, for example resourceType or patient.gender"
              value={form.matchContentJson}
              onChange={(e) => update({ matchContentJson: e.currentTarget.value })}
              styles={MONO}
              {...bind(errors, 'matchContentJson')}
            />
          )}
          <TextInput
            label="Expected value"
            required
            description="The value found there must equal this."
            value={form.matchContentValue}
            onChange={(e) => update({ matchContentValue: e.currentTarget.value })}
            {...bind(errors, 'matchContentValue')}
          />
        </SimpleGrid>
      )}
    </Stack>
  );
}
