/** The console: a set-password link's page, or the sign-in gates and then the routed pages inside the shell layout. */
import { useEffect, useState } from 'react';
import { Center, Loader, MantineProvider } from '@mantine/core';
import { RouterProvider, createHashRouter } from 'react-router';
import { cssVariablesResolver, theme } from './theme';
import { useSession } from './stores/session';
import { SignInPage } from './pages/signin/SignInPage';
import { ChangePasswordPage } from './pages/signin/ChangePasswordPage';
import { SetPasswordPage, setPasswordToken } from './pages/signin/SetPasswordPage';
import { ReauthModal } from './pages/signin/ReauthModal';
import { appRoutes } from './routes';
import { ErrorAlert } from './components/ErrorAlert';
import { openIdReturn } from './api/openid';

// Hash routes (`/#/transactions`) never collide with API paths such as `/channels` on the same origin.
const router = createHashRouter(appRoutes);

function Gate() {
  const status = useSession((s) => s.status);
  const check = useSession((s) => s.check);
  const finishOpenId = useSession((s) => s.finishOpenId);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    // Back from the OpenID provider (`/?code=...&state=...`): finish that sign-in, and take the one-use code out of
    // the address bar and the history before anything else runs.
    const back = openIdReturn(window.location.search);
    if (back !== null) {
      window.history.replaceState(null, '', `${window.location.pathname}#/`);
      void finishOpenId(back);
      return;
    }
    check().catch(setError);
  }, [check, finishOpenId]);
  if (error !== null && status === 'unknown') {
    return (
      <Center h="100vh" p="xl">
        <ErrorAlert error={error} action="reach Junction" />
      </Center>
    );
  }
  if (status === 'unknown') {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (status === 'signedOut') return <SignInPage />;
  if (status === 'mustChangePassword') return <ChangePasswordPage />;
  return (
    <>
      <RouterProvider router={router} />
      <ReauthModal />
    </>
  );
}

export function App() {
  // A set-password link needs no session: it is opened by someone who cannot sign in yet.
  const token = setPasswordToken(window.location.hash);
  // The colour scheme follows the system's (prefers-color-scheme); both schemes meet WCAG 2.1 AA contrast.
  return <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">{token === null ? <Gate /> : <SetPasswordPage token={token} />}</MantineProvider>;
}
