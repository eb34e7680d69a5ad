/** The routes a request is sent to: one primary (its answer goes back to the client), any number of others. */
import { Alert, Badge, Button, Fieldset, Group, NativeSelect, NumberInput, PasswordInput, Radio, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import type { RouteType } from '../../../../service/contracts/channels';
import { ROUTE_KINDS, routeKind } from '../../data/kinds';
import { defaultRouteType, isSocketRoute, newRoute } from './form';
import type { RouteForm } from './form';
import { bind, fieldId } from './fields';
import type { TabProps } from './fields';
import { numberValue } from './BasicsTab';

const ROUTE_TYPES = Object.entries(ROUTE_KINDS).map(([value, kind]) => ({ value, label: kind.label }));

function RouteCard({ route, index, count, props }: { route: RouteForm; index: number; count: number; props: TabProps }) {
  const { form, update, errors } = props;
  const at = (field: string) => `routes.${index}.${field}`;
  const change = (patch: Partial<RouteForm>) => update({ routes: form.routes.map((r, j) => (j === index ? { ...r, ...patch } : r)) });
  const choosePrimary = () => update({ routes: form.routes.map((r, j) => ({ ...r, primary: j === index })) });
  const move = (by: number) => {
    const routes = [...form.routes];
    const [moved] = routes.splice(index, 1);
    if (moved === undefined) return;
    routes.splice(index + by, 0, moved);
    update({ routes });
  };
  const remove = () => {
    const routes = form.routes.filter((_, j) => j !== index);
    // Keep exactly one primary: the first remaining route takes over when the primary goes.
    if (route.primary && routes.length > 0 && !routes.some((r) => r.primary)) routes[0] = { ...routes[0], primary: true } as RouteForm;
    update({ routes });
  };
  const socket = isSocketRoute(route.type);
  const number = index + 1;
  const title = `Route ${number}${route.name.trim() === '' ? '' : `: ${route.name.trim()}`}`;
  return (
    <Fieldset
      legend={
        <Group gap="xs" component="span">
          <span>{title}</span>
          {route.primary && (
            <Badge size="sm" variant="light">
              primary
            </Badge>
          )}
          {!route.enabled && (
            <Badge size="sm" color="gray" variant="light">
              disabled
            </Badge>
          )}
        </Group>
      }
    >
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="lg">
            <Radio
              id={fieldId(at('primary'))}
              name="primary-route"
              label="Primary route"
              checked={route.primary}
              onChange={choosePrimary}
              description="Its answer goes back to the client"
            />
            <Switch id={fieldId(at('status'))} label="Route enabled" checked={route.enabled} onChange={(e) => change({ enabled: e.currentTarget.checked })} />
          </Group>
          <Group gap="xs">
            <Button size="compact-sm" variant="default" disabled={index === 0} onClick={() => move(-1)} aria-label={`Move up (route ${number})`}>
              Move up
            </Button>
            <Button size="compact-sm" variant="default" disabled={index === count - 1} onClick={() => move(1)} aria-label={`Move down (route ${number})`}>
              Move down
            </Button>
            <Button size="compact-sm" variant="subtle" color="red" disabled={count === 1} onClick={remove} aria-label={`Remove route ${number}`}>
              Remove
            </Button>
          </Group>
        </Group>
        <SimpleGrid cols={4}>
          <TextInput label="Route name" required value={route.name} onChange={(e) => change({ name: e.currentTarget.value })} {...bind(errors, at('name'))} />
          <NativeSelect
            label="Route type"
            data={ROUTE_TYPES}
            value={route.type}
            onChange={(e) => change({ type: e.currentTarget.value as RouteType })}
            {...bind(errors, at('type'))}
          />
          <TextInput label="Host" required placeholder="lab.clinic.local" value={route.host} onChange={(e) => change({ host: e.currentTarget.value })} {...bind(errors, at('host'))} />
          <NumberInput
            label="Port"
            required
            min={1}
            max={65535}
            allowDecimal={false}
            allowNegative={false}
            value={route.port}
            onChange={(v) => change({ port: numberValue(v) })}
            {...bind(errors, at('port'))}
          />
        </SimpleGrid>
        {socket ? (
          <SimpleGrid cols={3}>
            <Switch
              id={fieldId(at('secured'))}
              label="TLS"
              description={routeKind(route.type).tlsHelp}
              checked={route.secured}
              onChange={(e) => change({ secured: e.currentTarget.checked })}
            />
            <Text size="sm" c="dimmed" style={{ gridColumn: 'span 2' }}>
              {routeKind(route.type).replyHelp}
            </Text>
          </SimpleGrid>
        ) : (
          <>
            <SimpleGrid cols={3}>
              <TextInput
                label="Path"
                description="Replaces the request path. Empty: the request’s own path."
                placeholder="/fhir"
                value={route.path}
                onChange={(e) => change({ path: e.currentTarget.value })}
                {...bind(errors, at('path'))}
              />
              <TextInput
                label="Path transform"
                description="Instead of a path: s/from/to or s/from/to/g on the request path."
                placeholder="s/^\/lab/\/api/"
                value={route.pathTransform}
                onChange={(e) => change({ pathTransform: e.currentTarget.value })}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                {...bind(errors, at('pathTransform'))}
              />
              <Switch
                id={fieldId(at('secured'))}
                mt="lg"
                label="HTTPS"
                checked={route.secured}
                onChange={(e) => change({ secured: e.currentTarget.checked })}
              />
            </SimpleGrid>
            <SimpleGrid cols={3}>
              <TextInput
                label="Username"
                description="For routes that need basic authentication."
                autoComplete="off"
                value={route.username}
                onChange={(e) => change({ username: e.currentTarget.value })}
                {...bind(errors, at('username'))}
              />
              <Stack gap={4}>
                <PasswordInput
                  label="Password"
                  autoComplete="new-password"
                  description={route.passwordStored ? 'A password is stored. Leave empty to keep it, or type a new one.' : 'Empty: no password.'}
                  placeholder={route.passwordStored ? 'stored password kept' : undefined}
                  value={route.password}
                  onChange={(e) => change({ password: e.currentTarget.value })}
                  {...bind(errors, at('password'))}
                />
                {route.passwordStored && (
                  <Group>
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => change({ passwordStored: false, password: '' })}>
                      Remove stored password
                    </Button>
                  </Group>
                )}
              </Stack>
              <Switch
                id={fieldId(at('forwardAuthHeader'))}
                mt="lg"
                label="Forward the client’s Authorization header"
                checked={route.forwardAuthHeader}
                onChange={(e) => change({ forwardAuthHeader: e.currentTarget.checked })}
              />
            </SimpleGrid>
          </>
        )}
        {!route.primary && (
          <SimpleGrid cols={3}>
            <Switch
              id={fieldId(at('waitPrimaryResponse'))}
              mt="lg"
              label="Wait for the primary route"
              description="Send this route only after the primary route has answered"
              checked={route.waitPrimaryResponse}
              onChange={(e) => change({ waitPrimaryResponse: e.currentTarget.checked })}
            />
            <TextInput
              label="Send when the primary answers"
              description="Status codes and ranges, such as 200, 201, 2**. Empty: any answer."
              placeholder="2**"
              disabled={!route.waitPrimaryResponse}
              value={route.statusCodesCheck}
              onChange={(e) => change({ statusCodesCheck: e.currentTarget.value })}
              {...bind(errors, at('statusCodesCheck'))}
            />
          </SimpleGrid>
        )}
      </Stack>
    </Fieldset>
  );
}

export function RoutesTab(props: TabProps) {
  const { form, update, errors } = props;
  const problem = errors.at('routes');
  // A route added to an MLLP channel is an MLLP route (a stream channel's a TCP one) until the person picks another.
  const add = () => update({ routes: [...form.routes, newRoute(form.routes.length === 0, defaultRouteType(form))] });
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Every enabled route gets the request at the same time, except routes that wait for the primary route. The client gets the answer of the primary route.
      </Text>
      {problem !== undefined && (
        <Alert color="red" id={fieldId('routes')} tabIndex={-1}>
          {problem}
        </Alert>
      )}
      {form.routes.map((route, i) => (
        <RouteCard key={route.key} route={route} index={i} count={form.routes.length} props={props} />
      ))}
      <Group>
        <Button variant="light" onClick={add}>
          Add route
        </Button>
      </Group>
    </Stack>
  );
}
