/**
 * The console's frame: navigation on the left, the signed-in user and live-feed state on top, the page in the middle.
 * On a narrow screen (a phone, 390 px) the navigation and the signed-in user's links fold behind the menu button, so
 * the header holds only what fits: the button, the name and the live-feed state.
 */
import { useEffect, useState } from 'react';
import { Anchor, AppShell, Badge, Burger, Button, Divider, Group, NavLink, Stack, Title, Tooltip } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { NavLink as RouterLink, Outlet, useLocation } from 'react-router';
import type { RouteObject } from 'react-router';
import { isAdmin, useSession } from '../stores/session';
import { live } from '../api/live';
import type { LiveState } from '../api/live';
import { helpFor } from '../data/help';
import { ServiceWarnings } from './ServiceWarnings';

/** A link in the navigation. */
export interface NavItem {
  to: string;
  label: string;
  adminOnly?: boolean;
}

/** One area of the console: its link in the navigation and its pages' routes (relative to the console root). */
export interface Area {
  nav: NavItem;
  routes: RouteObject[];
}

function LiveIndicator() {
  const [state, setState] = useState<LiveState>(live.state);
  useEffect(() => live.onState(setState), []);
  const label = state === 'open' ? 'Live' : state === 'connecting' ? 'Connecting' : 'Offline';
  const color = state === 'open' ? 'teal' : state === 'connecting' ? 'yellow' : 'gray';
  return (
    <Tooltip label={state === 'open' ? 'Live updates are on' : 'Live updates are not connected; pages refresh when it comes back'}>
      <Badge color={color} variant="light" aria-label={`Live feed: ${label}`}>
        {label}
      </Badge>
    </Tooltip>
  );
}

export function Layout({ nav }: { nav: readonly NavItem[] }) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const user = useSession((s) => s.user);
  const signOut = useSession((s) => s.signOut);
  const location = useLocation();
  useEffect(close, [location.pathname, close]);
  const admin = isAdmin(user);
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 200, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={2} size="h4">
              Junction
            </Title>
            <LiveIndicator />
          </Group>
          <Group gap="sm" wrap="nowrap">
            {/* This page's guide in the manual the service serves (data/help.ts), in a tab of its own so the page stays. */}
            <Anchor href={helpFor(location.pathname)} target="_blank" rel="noopener noreferrer" size="sm">
              Help
            </Anchor>
            <Group gap="sm" wrap="nowrap" visibleFrom="sm">
              {/* The name holds the visible email, and not in brackets, which speech input ignores (WCAG 2.5.3, label in name). */}
              <Anchor component={RouterLink} to="/account" size="sm" truncate maw={320} aria-label={`My account: ${user?.email ?? ''}`}>
                {user?.email}
              </Anchor>
              <Button variant="default" size="xs" onClick={() => void signOut()}>
                Sign out
              </Button>
            </Group>
          </Group>
        </Group>
      </AppShell.Header>
      {/* Scrolls on its own when the window is short (200% zoom of 1280×720 leaves 360px), so no link is cut off. */}
      <AppShell.Navbar p="xs" component="nav" aria-label="Main" style={{ overflowY: 'auto' }}>
        {nav.filter((item) => admin || item.adminOnly !== true).map((item) => (
          <NavLink key={item.to} component={RouterLink} to={item.to} end={item.to === '/'} label={item.label} />
        ))}
        {/* Narrow, the header has no room for these: they are in the folded menu instead. The link is named by what it
            shows (label and email), so its name holds its visible words (axe label-content-name-mismatch). */}
        <Stack gap="xs" hiddenFrom="sm" mt="xs">
          <Divider />
          <NavLink component={RouterLink} to="/account" label="My account" description={user?.email} styles={{ description: { overflowWrap: 'anywhere' } }} />
          <Button variant="default" size="xs" onClick={() => void signOut()}>
            Sign out
          </Button>
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        {admin && <ServiceWarnings />}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
