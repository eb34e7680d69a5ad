/**
 * Creates or edits a channel: every setting the API accepts, in tabs. The server checks the whole channel; when it
 * refuses, each problem is shown next to its input, the first problem's tab is opened, and a summary lists them all.
 * Nothing typed is lost on an error or a session expiry: the form is only left after a successful save. A channel
 * kept as deleted is shown read-only until it is restored.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Anchor, Badge, Button, Center, Group, List, Loader, Modal, Paper, Stack, Tabs, Text, VisuallyHidden } from '@mantine/core';
import { Link, useBlocker, useNavigate, useParams } from 'react-router';
import type { Channel } from '../../../../service/contracts/channels';
import { ApiError } from '../../api/client';
import { createChannel, getChannel, updateChannel } from '../../api/channels';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PageHeader } from '../../components/PageHeader';
import { useChannels } from '../../stores/channels';
import type { RestoreChoice } from '../../stores/channels';
import { isAdmin, useSession } from '../../stores/session';
import { clientProblems, createBody, emptyForm, formFromChannel, updateBody } from './form';
import type { ChannelForm } from './form';
import { FieldErrors, fieldId, fieldPlace, tabOf, tabsFor } from './fields';
import type { TabId, TabProps } from './fields';
import { BasicsTab } from './BasicsTab';
import { RoutesTab } from './RoutesTab';
import { AccessTab } from './AccessTab';
import { nobodyAdmitted } from './access-warning';
import { MatchingTab } from './MatchingTab';
import { RewritingTab } from './RewritingTab';
import { RetriesTab } from './RetriesTab';
import { AlertsTab } from './AlertsTab';
import { RestoreChannelForm } from './RestoreChannelForm';
import { CheckRoutesDialog } from './CheckRoutesDialog';
import { TestMessageDialog } from './TestMessageDialog';
import { channelKind } from '../../data/kinds';

const PANELS: Record<TabId, (props: TabProps) => React.ReactNode> = {
  basics: BasicsTab,
  routes: RoutesTab,
  access: AccessTab,
  matching: MatchingTab,
  rewriting: RewritingTab,
  retries: RetriesTab,
  alerts: AlertsTab,
};

/** Focuses the input of a field path, or of the nearest enclosing field that has one (`methods.2` → `methods`). */
function focusField(path: string): void {
  const parts = path.split('.');
  while (parts.length > 0) {
    const element = document.getElementById(fieldId(parts.join('.')));
    if (element !== null) {
      element.scrollIntoView({ block: 'center' });
      element.focus();
      return;
    }
    parts.pop();
  }
}

function ProblemSummary({ errors, form, onGo }: { errors: FieldErrors; form: ChannelForm; onGo: (path: string) => void }) {
  if (errors.empty) return null;
  return (
    <Alert color="red" role="alert" title="The channel was not saved" id="channel-problems" style={{ scrollMarginTop: 72 }}>
      <Text size="sm" mb="xs">
        Fix {errors.paths.length === 1 ? 'this problem' : `these ${errors.paths.length} problems`}, then save again. Each one is also shown next to its
        field.
      </Text>
      <List size="sm" spacing={4}>
        {errors.paths.map((path) => (
          <List.Item key={path}>
            <Anchor component="button" type="button" size="sm" onClick={() => onGo(path)}>
              {fieldPlace(path, form)}
            </Anchor>{' '}
            {errors.plainAt(path)}.
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}

/** The form for a stored channel; the clients must be loaded first, as they tell client grants from roles in `allow`. */
function formFor(channel: Channel): ChannelForm {
  const clientIds = new Set(useChannels.getState().lookups.clients.map((c) => c.clientID));
  return formFromChannel(channel, clientIds);
}

function Editor({ id }: { id: string | undefined }) {
  const creating = id === undefined;
  const navigate = useNavigate();
  const admin = isAdmin(useSession((s) => s.user));
  const loadLookups = useChannels((s) => s.loadLookups);
  const lookupError = useChannels((s) => s.lookups.error);
  const lookupsLoaded = useChannels((s) => s.lookups.loaded);
  const lookupClients = useChannels((s) => s.lookups.clients);
  const saved = useChannels((s) => s.saved);
  const restore = useChannels((s) => s.restore);
  const [restoring, setRestoring] = useState(false);
  const [checking, setChecking] = useState(false);
  const [testing, setTesting] = useState(false);

  const [form, setForm] = useState<ChannelForm | null>(creating ? emptyForm() : null);
  const [stored, setStored] = useState<Channel | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [tab, setTab] = useState<TabId>('basics');
  const [errors, setErrors] = useState(() => new FieldErrors());
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [dirty, setDirty] = useState(false);
  const leaving = useRef(false);
  const pendingFocus = useRef<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    // Suggestions come from admin-only lists; the look-up never fails, it records what it could not fetch.
    const lookups = admin ? loadLookups() : Promise.resolve();
    if (id === undefined) {
      void lookups;
      return;
    }
    Promise.all([getChannel(id, controller.signal), lookups])
      .then(([channel]) => {
        setStored(channel);
        setForm(formFor(channel));
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setLoadError(err);
      });
    return () => controller.abort();
  }, [id, admin, loadLookups]);

  // Moves focus to a field once its tab has been drawn.
  useEffect(() => {
    const path = pendingFocus.current;
    if (path === null) return;
    pendingFocus.current = null;
    const frame = requestAnimationFrame(() => focusField(path));
    return () => cancelAnimationFrame(frame);
  }, [tab, errors]);

  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && !leaving.current && currentLocation.pathname !== nextLocation.pathname);

  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const restoreHere = async (choice: RestoreChoice) => {
    if (stored === null) return;
    const restored = await restore(stored, choice);
    setStored(restored);
    setForm(formFor(restored));
  };

  const update = useCallback((patch: Partial<ChannelForm>) => {
    setForm((current) => (current === null ? current : { ...current, ...patch }));
    setDirty(true);
    // A field that was changed no longer shows the problem the server found in it.
    const fields = Object.keys(patch).flatMap((key) => {
      if (key === 'allowClients' || key === 'allowRoles') return ['allow'];
      if (key === 'enabled') return ['status'];
      // Settings of the type left behind are no longer sent, so their problems go with them.
      if (key === 'type') return ['type', 'urlPattern', 'tcpHost', 'tcpPort', 'tcpFraming', 'requireClientCertificate', 'pollingSchedule'];
      if (key === 'matchMode') return ['matchContentRegex', 'matchContentXpath', 'matchContentJson', 'matchContentValue'];
      if (key === 'limitRetries') return ['autoRetryMaxAttempts'];
      if (key === 'limitBodyAge') return ['maxBodyAgeDays'];
      return [key];
    });
    setErrors((current) => current.without(fields));
  }, []);

  const goTo = (path: string) => {
    pendingFocus.current = path;
    setTab(tabOf(path));
  };

  const showProblems = (problems: Record<string, string>) => {
    const found = new FieldErrors(problems);
    setErrors(found);
    const first = found.paths[0];
    if (first !== undefined) setTab(tabOf(first));
    requestAnimationFrame(() => document.getElementById('channel-problems')?.scrollIntoView({ block: 'start' }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (form === null || saving) return;
    const local = clientProblems(form);
    if (Object.keys(local).length > 0) {
      showProblems(local);
      return;
    }
    setSaving(true);
    setSaveError(null);
    setErrors(new FieldErrors());
    const request = id === undefined ? createChannel(createBody(form)) : updateChannel(id, updateBody(form));
    request
      .then((channel) => {
        leaving.current = true;
        saved(channel, creating);
        void navigate('/channels');
      })
      .catch((err: unknown) => {
        // The form keeps everything typed; only the problems are added.
        const fields = err instanceof ApiError ? err.fieldErrors() : {};
        if (Object.keys(fields).length > 0 && (err as ApiError).status < 500) showProblems(fields);
        else setSaveError(err);
        setSaving(false);
      });
  };

  const title = creating ? 'New channel' : `Channel “${stored?.name ?? ''}”`;
  if (loadError !== null) {
    return (
      <Stack>
        <PageHeader title="Channel" />
        <ErrorAlert error={loadError} action="load the channel" />
        <Anchor component={Link} to="/channels">
          Back to the channels
        </Anchor>
      </Stack>
    );
  }
  if (form === null) {
    return (
      <Center mih={200}>
        <Loader aria-label="Loading the channel" />
      </Center>
    );
  }
  const props: TabProps = { form, update, errors };
  const tabs = tabsFor(form.type, errors);
  // A tab hidden by a change of channel type (request matching for a tcp channel) gives way to the basics.
  const shown = tabs.some((t) => t.id === tab) ? tab : 'basics';
  const Panel = PANELS[shown];
  const deleted = stored?.status === 'deleted';
  const editable = admin && !deleted;
  const nobody = nobodyAdmitted(form, lookupClients);
  return (
    <>
      <form onSubmit={submit} aria-label={title} noValidate>
        <Stack gap="md">
          <PageHeader title={title}>
            {/* Both act on the channel as saved: the routes and settings the service uses now. */}
            {editable && stored !== null && (
              <Button size="xs" variant="light" onClick={() => setChecking(true)}>
                Check routes
              </Button>
            )}
            {editable && stored !== null && stored.status === 'enabled' && !channelKind(stored.type).polls && (
              <Button size="xs" variant="light" onClick={() => setTesting(true)}>
                Send test message
              </Button>
            )}
            {stored !== null && (
              <Anchor component={Link} to={`/channels/${stored._id}/metrics`} size="sm">
                Metrics
              </Anchor>
            )}
            <Anchor component={Link} to="/channels" size="sm">
              Back to the channels
            </Anchor>
          </PageHeader>
          {!admin && (
            <Alert color="blue" title="Read only">
              Only administrators can change channels.
            </Alert>
          )}
          {deleted && (
            <Alert color="red" title="This channel is deleted">
              <Stack gap="xs" align="flex-start">
                <Text size="sm">
                  It is kept, read-only, because transactions were recorded through it. Junction does not route requests through it, and its name is free
                  for other channels.
                </Text>
                {admin && (
                  <Button size="xs" variant="light" onClick={() => setRestoring(true)}>
                    Restore channel
                  </Button>
                )}
              </Stack>
            </Alert>
          )}
          {admin && lookupError !== null && (
            <Alert color="yellow" title="No suggestions">
              Clients, roles, user groups or contact groups could not all be loaded to suggest them; you can still type clients, roles and user groups in.
            </Alert>
          )}
          {editable && lookupsLoaded && nobody !== null && (
            <Alert color="yellow" title="Nobody may use this channel" data-testid="channel-access-warning">
              <Stack gap="xs" align="flex-start">
                <Text size="sm">
                  {nobody} Every request or message sent to it will be refused. Add allowed clients, roles or whitelisted IP addresses, or make it public.
                </Text>
                {shown !== 'access' && (
                  <Button size="xs" variant="light" onClick={() => setTab('access')}>
                    Open the Access tab
                  </Button>
                )}
              </Stack>
            </Alert>
          )}
          <ProblemSummary errors={errors} form={form} onGo={goTo} />
          <ErrorAlert error={saveError} action="save the channel" onClose={() => setSaveError(null)} />

          <Tabs value={shown} onChange={(v) => setTab((v ?? 'basics') as TabId)} keepMounted={false}>
            <Tabs.List>
              {tabs.map(({ id: tabId, label }) => {
                const count = errors.countIn(tabId);
                return (
                  <Tabs.Tab
                    key={tabId}
                    value={tabId}
                    rightSection={
                      count > 0 ? (
                        <Badge color="red" size="sm" circle>
                          {count}
                          <VisuallyHidden>{count === 1 ? ' problem' : ' problems'}</VisuallyHidden>
                        </Badge>
                      ) : undefined
                    }
                  >
                    {label}
                  </Tabs.Tab>
                );
              })}
            </Tabs.List>
            <fieldset disabled={!editable} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
              <Tabs.Panel value={shown} pt="md">
                <Panel {...props} />
              </Tabs.Panel>
            </fieldset>
          </Tabs>

          {editable && (
            <Paper withBorder p="sm" pos="sticky" bottom={0} style={{ zIndex: 5 }}>
              <Group justify="space-between">
                <Text size="sm" c="dimmed" aria-live="polite">
                  {dirty ? 'You have unsaved changes.' : creating ? 'Fill in the channel, then save it.' : 'No changes yet.'}
                </Text>
                <Group gap="xs">
                  <Button component={Link} to="/channels" variant="default">
                    Cancel
                  </Button>
                  <Button type="submit" loading={saving}>
                    Save channel
                  </Button>
                </Group>
              </Group>
            </Paper>
          )}
        </Stack>

        <Modal opened={blocker.state === 'blocked'} onClose={() => blocker.reset?.()} title="Leave without saving?">
          <Stack>
            <Text size="sm">Your changes to this channel have not been saved. If you leave now they are lost.</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => blocker.reset?.()}>
                Stay here
              </Button>
              <Button color="red" onClick={() => blocker.proceed?.()}>
                Leave and discard
              </Button>
            </Group>
          </Stack>
        </Modal>
      </form>
      {/* Outside the channel form: a form's submit would bubble through the portal into it. */}
      <CheckRoutesDialog channel={checking ? stored : null} onClose={() => setChecking(false)} />
      <TestMessageDialog channel={testing ? stored : null} onClose={() => setTesting(false)} />
      <Modal opened={restoring && stored !== null} onClose={() => setRestoring(false)} title={`Restore channel “${stored?.name ?? ''}”`}>
        {stored !== null && <RestoreChannelForm channel={stored} onRestore={restoreHere} onDone={() => setRestoring(false)} />}
      </Modal>
    </>
  );
}

/** `channels/new` and `channels/:id`; a new id starts a fresh editor. */
export function ChannelEditorPage() {
  const { id } = useParams();
  return <Editor key={id ?? 'new'} id={id} />;
}
