/** Name, type, what the channel listens to (URL pattern, socket, schedule), priority, status and properties. */
import { Button, Fieldset, Group, NumberInput, Radio, SimpleGrid, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import type { ChannelType, TcpFraming } from '../../../../service/contracts/channels';
import { defaultRouteType, isSocketChannel, newProperty, retypeUntouched } from './form';
import { prefixOf, prefixPattern } from './url-prefix';
import type { NumberField, PropertyForm } from './form';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';
import { channelKind } from '../../data/kinds';

/** A number input's value in the form's terms. */
export function numberValue(value: number | string): NumberField {
  return typeof value === 'number' ? value : '';
}

const TYPE_HELP: Record<ChannelType, string> = {
  http: 'Requests arrive on the HTTP and HTTPS transaction ports and are matched by URL pattern.',
  tcp: 'Junction listens on its own TCP port; every message received there (HL7 v2 over MLLP, or raw bytes) goes to this channel.',
  tls: 'Like TCP, encrypted with TLS using Junction’s server certificate.',
  polling: 'No client sends requests: Junction calls the routes itself on a schedule.',
};

/** The framings a tcp or tls channel can use, each explained in one line. */
const FRAMINGS: { value: TcpFraming; label: string; help: string }[] = [
  { value: 'auto', label: 'Auto-detect', help: 'MLLP when a connection starts with the MLLP start byte (0x0B), otherwise stream.' },
  { value: 'mllp', label: 'MLLP', help: 'HL7 v2 messages wrapped in MLLP frames; several per connection, each answered in order.' },
  { value: 'stream', label: 'Stream', help: 'One message per connection, read until the sender stops sending (half-closes).' },
];

/** Where a tcp or tls channel listens, how it reads messages, and (tls) whether it asks for a client certificate. */
function SocketSettings({ form, update, errors }: TabProps) {
  return (
    <>
      <SimpleGrid cols={2}>
        <TextInput
          label="Listen on address"
          description="The network address to listen on; empty listens on all of them (0.0.0.0)."
          placeholder="0.0.0.0"
          value={form.tcpHost}
          onChange={(e) => update({ tcpHost: e.currentTarget.value })}
          {...bind(errors, 'tcpHost')}
        />
        <NumberInput
          label="Listen on port"
          required
          description="The port clients connect to, for example 2575 for MLLP."
          min={1}
          max={65535}
          allowDecimal={false}
          allowNegative={false}
          value={form.tcpPort}
          onChange={(v) => update({ tcpPort: numberValue(v) })}
          {...bind(errors, 'tcpPort')}
        />
      </SimpleGrid>
      <Radio.Group
        label="Message framing"
        description="How Junction finds where one message ends and the next begins."
        value={form.tcpFraming}
        onChange={(v) => update({ tcpFraming: v, routes: retypeUntouched(form.routes, defaultRouteType({ type: form.type, tcpFraming: v })) })}
        {...bind(errors, 'tcpFraming')}
      >
        <Stack mt="xs" gap="xs">
          {FRAMINGS.map((f) => (
            <Radio key={f.value} value={f.value} label={f.label} description={f.help} />
          ))}
        </Stack>
      </Radio.Group>
      {channelKind(form.type).secure && (
        <Switch
          id={fieldId('requireClientCertificate')}
          label="Require a client certificate"
          description="Refuse connections that present no certificate Junction trusts. A presented certificate identifies the client by its CN, as on the HTTPS port."
          checked={form.requireClientCertificate}
          onChange={(e) => update({ requireClientCertificate: e.currentTarget.checked })}
          error={errors.at('requireClientCertificate')}
        />
      )}
    </>
  );
}

function Properties({ form, update, errors }: TabProps) {
  const change = (i: number, patch: Partial<PropertyForm>) => update({ properties: form.properties.map((p, j) => (j === i ? { ...p, ...patch } : p)) });
  return (
    <Fieldset legend="Properties">
      <Stack gap="xs">
        <Text size="sm" c="dimmed">
          Extra names and values kept with the channel, for your own reference or for mediators.
        </Text>
        {form.properties.map((property, i) => (
          <Group key={property.key} align="flex-start" wrap="nowrap">
            <TextInput
              label={`Property ${i + 1} name`}
              value={property.name}
              onChange={(e) => change(i, { name: e.currentTarget.value })}
              style={{ flex: 1 }}
              {...bind(errors, `properties.${i}`)}
            />
            <TextInput label={`Property ${i + 1} value`} value={property.value} onChange={(e) => change(i, { value: e.currentTarget.value })} style={{ flex: 1 }} />
            <Button
              variant="subtle"
              color="red"
              mt={24}
              aria-label={`Remove property ${i + 1}`}
              onClick={() => update({ properties: form.properties.filter((_, j) => j !== i) })}
            >
              Remove
            </Button>
          </Group>
        ))}
        <Group>
          <Button variant="light" size="xs" onClick={() => update({ properties: [...form.properties, newProperty()] })}>
            Add property
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}

/**
 * The URL pattern of an http or polling channel: typed as a path prefix (made into an anchored, escaped regular
 * expression) or as the regular expression itself; a pattern that is a prefix shows as one.
 */
function UrlPattern({ form, update, errors }: TabProps) {
  const polls = channelKind(form.type).polls;
  const isPrefix = form.urlPattern !== '' && prefixOf(form.urlPattern) !== null;
  return (
    <SimpleGrid cols={{ base: 1, sm: polls ? 1 : 2 }}>
      {!polls && (
        <TextInput
          label="Path prefix"
          description="Takes requests to this path and everything below it: /fhir takes /fhir and /fhir/Patient/1, not /fhirx. Fills in the URL pattern."
          placeholder="/fhir"
          value={form.urlPrefix}
          onChange={(e) => {
            const urlPrefix = e.currentTarget.value;
            update({ urlPrefix, urlPattern: prefixPattern(urlPrefix) });
          }}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
      )}
      <TextInput
        label="URL pattern"
        required
        description={
          polls
            ? 'A regular expression; it names the path the polls are recorded under, for example ^/poll/lab$.'
            : isPrefix
              ? 'The regular expression the path prefix makes. Edit it for anything a prefix cannot say.'
              : 'A regular expression matched against the request path, for example ^/fhir/.*$; or type a path prefix instead.'
        }
        value={form.urlPattern}
        onChange={(e) => {
          const urlPattern = e.currentTarget.value;
          update({ urlPattern, urlPrefix: prefixOf(urlPattern) ?? '' });
        }}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        {...bind(errors, 'urlPattern')}
      />
    </SimpleGrid>
  );
}

export function BasicsTab(props: TabProps) {
  const { form, update, errors } = props;
  const socket = isSocketChannel(form.type);
  return (
    <Stack>
      <SimpleGrid cols={2}>
        <TextInput label="Name" required value={form.name} onChange={(e) => update({ name: e.currentTarget.value })} maxLength={200} {...bind(errors, 'name')} />
        <NumberInput
          label="Priority"
          description="1 is tried first. Empty: after every numbered channel."
          min={1}
          allowDecimal={false}
          allowNegative={false}
          value={form.priority}
          onChange={(v) => update({ priority: numberValue(v) })}
          {...bind(errors, 'priority')}
        />
      </SimpleGrid>
      <Textarea
        label="Description"
        autosize
        minRows={2}
        maxRows={5}
        value={form.description}
        onChange={(e) => update({ description: e.currentTarget.value })}
        {...bind(errors, 'description')}
      />
      <Radio.Group
        label="Channel type"
        description={TYPE_HELP[form.type]}
        value={form.type}
        // Routes not filled in yet follow the channel: MLLP routes for an MLLP channel, HTTP for an http one.
        onChange={(v) => update({ type: v, routes: retypeUntouched(form.routes, defaultRouteType({ type: v, tcpFraming: form.tcpFraming })) })}
        {...bind(errors, 'type')}
      >
        <Group mt="xs">
          <Radio value="http" label="HTTP" />
          <Radio value="tcp" label="TCP" />
          <Radio value="tls" label="TLS" />
          <Radio value="polling" label="Polling" />
        </Group>
      </Radio.Group>

      {!socket && <UrlPattern {...props} />}
      {socket && <SocketSettings {...props} />}
      {channelKind(form.type).polls && (
        <TextInput
          label="Polling schedule"
          required
          description="A cron expression such as */5 * * * * (every 5 minutes), or a number and a unit such as 10 minutes, 2 hours or 1 days."
          value={form.pollingSchedule}
          onChange={(e) => update({ pollingSchedule: e.currentTarget.value })}
          {...bind(errors, 'pollingSchedule')}
        />
      )}

      <SimpleGrid cols={2}>
        <Switch
          id={fieldId('status')}
          label="Channel enabled"
          description="A disabled channel is skipped when requests are matched."
          checked={form.enabled}
          onChange={(e) => update({ enabled: e.currentTarget.checked })}
          error={errors.at('status')}
        />
        <NumberInput
          label="Timeout (milliseconds)"
          description="How long to wait for the routes to answer. Empty: the server’s default."
          min={1}
          max={3_600_000}
          allowDecimal={false}
          allowNegative={false}
          thousandSeparator=" "
          value={form.timeout}
          onChange={(v) => update({ timeout: numberValue(v) })}
          {...bind(errors, 'timeout')}
        />
      </SimpleGrid>

      <Properties {...props} />
    </Stack>
  );
}
