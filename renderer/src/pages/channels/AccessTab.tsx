/** Who may send requests through the channel, and which user groups may see or re-run its transactions. */
import { Fieldset, Group, Radio, Stack, TagsInput } from '@mantine/core';
import { useChannels } from '../../stores/channels';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';

export function AccessTab({ form, update, errors }: TabProps) {
  const lookups = useChannels((s) => s.lookups);
  const isPublic = form.authType === 'public';
  const clientIds = lookups.clients.map((c) => c.clientID);
  const clientName = new Map(lookups.clients.map((c) => [c.clientID, c.name]));
  // `allow` holds clients and roles together; problems on its items are shown under the clients input.
  const allowError = errors.within('allow', (i) => `“${[...form.allowClients, ...form.allowRoles][i] ?? ''}”`);
  const groupHelp = lookups.groups.length > 0 ? 'Suggestions are the groups your users belong to; type to add another.' : 'Type a group name and press Enter.';
  return (
    <Stack>
      <Fieldset legend="Who may send requests">
        <Stack>
          <Radio.Group
            label="Authentication type"
            value={form.authType}
            onChange={(v) => update({ authType: v })}
            {...bind(errors, 'authType')}
          >
            <Group mt="xs">
              <Radio value="private" label="Private: only the clients and roles below" />
              <Radio value="public" label="Public: anyone, without signing in" />
            </Group>
          </Radio.Group>
          <TagsInput
            id={fieldId('allow')}
            label="Allowed clients"
            description={isPublic ? 'Not used while the channel is public.' : 'Client IDs. Pick from the list or type one and press Enter.'}
            data={clientIds}
            renderOption={({ option }) => `${option.value}${clientName.get(option.value) ? ` (${clientName.get(option.value) ?? ''})` : ''}`}
            value={form.allowClients}
            onChange={(allowClients) => update({ allowClients })}
            disabled={isPublic}
            error={allowError}
            clearable
          />
          <TagsInput
            label="Allowed roles"
            description={isPublic ? 'Not used while the channel is public.' : 'Clients that have any of these roles may use the channel. A new name creates the role.'}
            data={lookups.roles}
            value={form.allowRoles}
            onChange={(allowRoles) => update({ allowRoles })}
            disabled={isPublic}
            clearable
          />
          <TagsInput
            label="Whitelisted IP addresses"
            description="Requests from these addresses are let in without client authentication."
            value={form.whitelist}
            onChange={(whitelist) => update({ whitelist })}
            id={fieldId('whitelist')}
            error={errors.within('whitelist', (i) => `“${form.whitelist[i] ?? ''}”`)}
            clearable
          />
        </Stack>
      </Fieldset>
      <Fieldset legend="Which users may see its transactions">
        <Stack>
          <TagsInput
            label="Groups that can view transactions"
            description={`Without request and response bodies. ${groupHelp}`}
            data={lookups.groups}
            value={form.txViewAcl}
            onChange={(txViewAcl) => update({ txViewAcl })}
            id={fieldId('txViewAcl')}
            error={errors.within('txViewAcl')}
            clearable
          />
          <TagsInput
            label="Groups that can view request and response bodies"
            description="Bodies may hold patient data."
            data={lookups.groups}
            value={form.txViewFullAcl}
            onChange={(txViewFullAcl) => update({ txViewFullAcl })}
            id={fieldId('txViewFullAcl')}
            error={errors.within('txViewFullAcl')}
            clearable
          />
          <TagsInput
            label="Groups that can re-run transactions"
            data={lookups.groups}
            value={form.txRerunAcl}
            onChange={(txRerunAcl) => update({ txRerunAcl })}
            id={fieldId('txRerunAcl')}
            error={errors.within('txRerunAcl')}
            clearable
          />
        </Stack>
      </Fieldset>
    </Stack>
  );
}
