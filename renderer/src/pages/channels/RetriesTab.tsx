/** Automatic retry of failed transactions, and what is kept of their bodies and for how long. */
import { Checkbox, Fieldset, NumberInput, SimpleGrid, Stack, Switch } from '@mantine/core';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';
import { numberValue } from './BasicsTab';

export function RetriesTab({ form, update, errors }: TabProps) {
  return (
    <Stack>
      <Fieldset legend="Automatic retry">
        <Stack>
          <Switch
            id={fieldId('autoRetryEnabled')}
            label="Retry automatically"
            description="Re-runs a transaction whose primary route could not be reached or timed out, or whose mediator reported an error. An error answer from the route (such as 500) is an answer, and is not retried."
            checked={form.autoRetryEnabled}
            onChange={(e) => update({ autoRetryEnabled: e.currentTarget.checked })}
          />
          <SimpleGrid cols={2}>
            <NumberInput
              label="Minimum wait between retries (minutes)"
              min={1}
              allowDecimal={false}
              allowNegative={false}
              disabled={!form.autoRetryEnabled}
              value={form.autoRetryPeriodMinutes}
              onChange={(v) => update({ autoRetryPeriodMinutes: numberValue(v) })}
              {...bind(errors, 'autoRetryPeriodMinutes')}
            />
            <Stack gap="xs">
              <Checkbox
                label="Limit the number of attempts"
                description="Unlimited when off."
                disabled={!form.autoRetryEnabled}
                checked={form.limitRetries}
                onChange={(e) => update({ limitRetries: e.currentTarget.checked })}
              />
              <NumberInput
                label="Maximum attempts"
                min={1}
                allowDecimal={false}
                allowNegative={false}
                disabled={!form.autoRetryEnabled || !form.limitRetries}
                value={form.autoRetryMaxAttempts}
                onChange={(v) => update({ autoRetryMaxAttempts: numberValue(v) })}
                {...bind(errors, 'autoRetryMaxAttempts')}
              />
            </Stack>
          </SimpleGrid>
        </Stack>
      </Fieldset>
      <Fieldset legend="Stored bodies">
        <Stack>
          <SimpleGrid cols={2}>
            <Switch
              id={fieldId('requestBody')}
              label="Store request bodies"
              description="Without a stored body, a POST, PUT or PATCH cannot be re-run."
              checked={form.requestBody}
              onChange={(e) => update({ requestBody: e.currentTarget.checked })}
            />
            <Switch
              id={fieldId('responseBody')}
              label="Store response bodies"
              checked={form.responseBody}
              onChange={(e) => update({ responseBody: e.currentTarget.checked })}
            />
          </SimpleGrid>
          <SimpleGrid cols={2}>
            <Checkbox
              label="Delete stored bodies after some days"
              description="The transactions stay; only their bodies go."
              checked={form.limitBodyAge}
              onChange={(e) => update({ limitBodyAge: e.currentTarget.checked })}
            />
            <NumberInput
              label="Keep bodies for (days)"
              min={1}
              max={36_500}
              allowDecimal={false}
              allowNegative={false}
              disabled={!form.limitBodyAge}
              value={form.maxBodyAgeDays}
              onChange={(v) => update({ maxBodyAgeDays: numberValue(v) })}
              {...bind(errors, 'maxBodyAgeDays')}
            />
          </SimpleGrid>
        </Stack>
      </Fieldset>
    </Stack>
  );
}
