/** URL rewriting: links in responses that point at a route are made to point back through Junction. */
import { Button, Fieldset, Group, NumberInput, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { newRewriteRule } from './form';
import type { RewriteRuleForm } from './form';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';
import { numberValue } from './BasicsTab';

export function RewritingTab({ form, update, errors }: TabProps) {
  const change = (i: number, patch: Partial<RewriteRuleForm>) =>
    update({ rewriteUrlsConfig: form.rewriteUrlsConfig.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  return (
    <Stack>
      <Switch
        id={fieldId('rewriteUrls')}
        label="Rewrite URLs"
        description="Rewrites href, src and fullUrl values in response bodies, and the Location header, so that links lead back through Junction."
        checked={form.rewriteUrls}
        onChange={(e) => update({ rewriteUrls: e.currentTarget.checked })}
      />
      <Switch
        id={fieldId('addAutoRewriteRules')}
        label="Add rules for the primary routes automatically"
        description="Links to the host and port of a primary route are rewritten to Junction’s own address. The rules below take precedence."
        checked={form.addAutoRewriteRules}
        disabled={!form.rewriteUrls}
        onChange={(e) => update({ addAutoRewriteRules: e.currentTarget.checked })}
      />
      <Text size="sm" c="dimmed">
        {form.rewriteUrls ? 'Your own rules:' : 'Rules are kept but not used while rewriting is off.'}
      </Text>
      {form.rewriteUrlsConfig.map((rule, i) => {
        const at = (field: string) => `rewriteUrlsConfig.${i}.${field}`;
        return (
          <Fieldset key={rule.key} legend={`Rewrite rule ${i + 1}`}>
            <Stack gap="sm">
              <SimpleGrid cols={4}>
                <TextInput label="From host" required value={rule.fromHost} onChange={(e) => change(i, { fromHost: e.currentTarget.value })} {...bind(errors, at('fromHost'))} />
                <NumberInput
                  label="From port"
                  required
                  min={1}
                  max={65535}
                  allowDecimal={false}
                  allowNegative={false}
                  value={rule.fromPort}
                  onChange={(v) => change(i, { fromPort: numberValue(v) })}
                  {...bind(errors, at('fromPort'))}
                />
                <TextInput label="To host" required value={rule.toHost} onChange={(e) => change(i, { toHost: e.currentTarget.value })} {...bind(errors, at('toHost'))} />
                <NumberInput
                  label="To port"
                  required
                  min={1}
                  max={65535}
                  allowDecimal={false}
                  allowNegative={false}
                  value={rule.toPort}
                  onChange={(v) => change(i, { toPort: numberValue(v) })}
                  {...bind(errors, at('toPort'))}
                />
              </SimpleGrid>
              <Group align="flex-end" wrap="nowrap">
                <TextInput
                  label="Path transform"
                  description="Optional: s/from/to or s/from/to/g applied to the rewritten path."
                  value={rule.pathTransform}
                  onChange={(e) => change(i, { pathTransform: e.currentTarget.value })}
                  styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                  style={{ flex: 1 }}
                  {...bind(errors, at('pathTransform'))}
                />
                <Button
                  variant="subtle"
                  color="red"
                  aria-label={`Remove rewrite rule ${i + 1}`}
                  onClick={() => update({ rewriteUrlsConfig: form.rewriteUrlsConfig.filter((_, j) => j !== i) })}
                >
                  Remove
                </Button>
              </Group>
            </Stack>
          </Fieldset>
        );
      })}
      <Group>
        <Button variant="light" onClick={() => update({ rewriteUrlsConfig: [...form.rewriteUrlsConfig, newRewriteRule()] })}>
          Add rewrite rule
        </Button>
      </Group>
    </Stack>
  );
}
