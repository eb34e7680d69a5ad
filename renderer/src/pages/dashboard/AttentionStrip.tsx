/**
 * The strip at the top of the dashboard: what needs acting on (`GET /attention`), worst first, each with where to fix
 * it. Read again every few seconds and on a reconnect of the live feed, so a fixed problem leaves without a reload.
 */
import { useEffect } from 'react';
import { Anchor, Badge, Code, Group, List, Paper, Text, Title, VisuallyHidden } from '@mantine/core';
import { Link } from 'react-router';
import type { AttentionItem, AttentionSeverity } from '../../../../service/contracts/attention';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useAttention } from '../../stores/attention';

const SEVERITY: Record<AttentionSeverity, { label: string; color: string }> = {
  error: { label: 'Error', color: 'red' },
  warning: { label: 'Warning', color: 'yellow' },
  info: { label: 'Info', color: 'blue' },
};

function Item({ item }: { item: AttentionItem }) {
  const severity = SEVERITY[item.severity];
  return (
    <List.Item>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        {/* The word is shown, so colour is never the only cue. */}
        <Badge color={severity.color} variant="light" radius="sm" style={{ textTransform: 'none', flexShrink: 0 }}>
          {severity.label}
        </Badge>
        <Text size="sm">
          {item.message}{' '}
          {item.fix.path !== undefined && (
            <Anchor component={Link} to={item.fix.path} size="sm" underline="always">
              Fix it<VisuallyHidden>: {item.message}</VisuallyHidden>
            </Anchor>
          )}
          {item.fix.setting !== undefined && (
            <>
              {' '}
              <Text span size="xs" c="dimmed">
                Setting <Code>{item.fix.setting}</Code>
              </Text>
            </>
          )}
        </Text>
      </Group>
    </List.Item>
  );
}

export function AttentionStrip() {
  const list = useAttention((s) => s.list);
  const error = useAttention((s) => s.error);

  useEffect(() => {
    const stop = useAttention.getState().watch();
    const off = live.onReconnect(() => void useAttention.getState().load());
    return () => {
      stop();
      off();
    };
  }, []);

  if (error !== null && list === null) return <ErrorAlert error={error} action="check what needs attention" />;
  if (list === null) return null;
  if (list.items.length === 0) {
    return (
      <Text size="sm" c="dimmed" mb="md" role="status" data-testid="attention-strip">
        Nothing needs attention.
      </Text>
    );
  }
  const worst = list.items[0]?.severity ?? 'info';
  return (
    <Paper component="section" withBorder p="sm" mb="md" style={{ borderLeft: `4px solid var(--mantine-color-${SEVERITY[worst].color}-6)` }} data-testid="attention-strip" aria-labelledby="attention-title">
      <Title order={2} size="h4" mb="xs" id="attention-title">
        Needs attention ({list.items.length})
      </Title>
      <List spacing={6} listStyleType="none" styles={{ itemWrapper: { width: '100%' } }}>
        {list.items.map((item, i) => (
          <Item key={`${item.kind}-${item.channel?._id ?? ''}-${i}`} item={item} />
        ))}
      </List>
    </Paper>
  );
}
