/**
 * The banner every page shows admins while Junction has a problem to act on (issue 33): the data folder running out
 * of space (red once new transactions are refused), or a log file that cannot be written. Read from `GET /about`
 * when the console opens and every minute after, so it appears and goes without a reload.
 */
import { useEffect, useState } from 'react';
import { Alert, List } from '@mantine/core';
import type { AboutAnswer } from '../../../service/contracts/api';
import { getAbout } from '../api/about';

const POLL_MS = 60_000;

export function ServiceWarnings() {
  const [about, setAbout] = useState<AboutAnswer | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    const load = () => {
      getAbout(abort.signal).then(setAbout, () => undefined);
    };
    load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      clearInterval(timer);
      abort.abort();
    };
  }, []);
  const warnings = about?.warnings ?? [];
  if (warnings.length === 0) return null;
  const refusing = about?.disk?.refusing === true;
  return (
    <Alert color={refusing ? 'red' : 'yellow'} title={refusing ? 'Junction is refusing new transactions' : 'Junction needs attention'} mb="md" role="alert">
      <List size="sm">
        {warnings.map((warning) => (
          <List.Item key={warning}>{warning}</List.Item>
        ))}
      </List>
    </Alert>
  );
}
