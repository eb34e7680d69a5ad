/**
 * Roles down the side, channels and clients across the top, a checkbox where they meet. The grid scrolls inside
 * its own box with the role names and column headings held in place, so a clinic with many channels still fits a
 * 1280×800 window. Arrow keys move between checkboxes; Space ticks.
 */
import type { KeyboardEvent, ReactNode } from 'react';
import { Badge, Button, Checkbox, Group, Menu, Text, Tooltip } from '@mantine/core';
import type { CSSProperties } from 'react';
import type { Role } from '../../../../service/contracts/roles';
import type { Grants } from '../../stores/roles';

export interface MatrixColumn {
  kind: 'channel' | 'client';
  id: string;
  label: string;
}

export interface RoleMatrixProps {
  roles: Role[];
  columns: MatrixColumn[];
  /** The grants each row shows: the unsaved draft where there is one, else what the server has. */
  grantsFor: (role: Role) => Grants;
  isDirty: (role: Role) => boolean;
  saving: string | null;
  onToggle: (role: Role, column: MatrixColumn, granted: boolean) => void;
  onSave: (role: Role) => void;
  onDiscard: (role: Role) => void;
  onRename: (role: Role) => void;
  onDelete: (role: Role) => void;
}

const HEAD_ROW = 30;
const FIRST_COLUMN = 250;
const body = 'var(--mantine-color-body)';
const border = '1px solid var(--mantine-color-default-border)';

const cornerStyle: CSSProperties = { position: 'sticky', top: 0, left: 0, zIndex: 3, background: body, width: FIRST_COLUMN, minWidth: FIRST_COLUMN, borderBottom: border, borderRight: border, textAlign: 'left', verticalAlign: 'bottom', padding: 8 };
const groupStyle: CSSProperties = { position: 'sticky', top: 0, zIndex: 2, background: body, height: HEAD_ROW, textAlign: 'left', padding: '4px 8px', borderLeft: border, whiteSpace: 'nowrap' };
// Keeps a group's heading in view while its columns scroll under the role names.
const stickyLabel: CSSProperties = { position: 'sticky', left: FIRST_COLUMN + 8 };
const nameStyle: CSSProperties = { position: 'sticky', top: HEAD_ROW, zIndex: 2, background: body, borderBottom: border, verticalAlign: 'bottom', padding: '4px 2px', minWidth: 34, width: 34 };
const rowHeadStyle: CSSProperties = { position: 'sticky', left: 0, zIndex: 1, background: body, borderRight: border, textAlign: 'left', padding: '4px 8px', fontWeight: 'normal' };
const cellStyle: CSSProperties = { textAlign: 'center', padding: 4, borderBottom: '1px solid var(--mantine-color-gray-2)' };

/** A column heading written bottom-to-top, so a column is only as wide as a checkbox. */
function VerticalName({ children, title }: { children: ReactNode; title: string }) {
  return (
    <div title={title} style={{ writingMode: 'vertical-rl', transform: 'rotate(180deg)', maxHeight: 150, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', margin: '0 auto', fontWeight: 600, fontSize: 13 }}>
      {children}
    </div>
  );
}

/** Arrow keys move focus to the neighbouring checkbox. */
function moveFocus(event: KeyboardEvent<HTMLTableElement>): void {
  const moves: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const move = moves[event.key];
  const target = event.target as HTMLElement;
  const at = target.dataset.cell;
  if (move === undefined || at === undefined) return;
  const [row, col] = at.split(':').map(Number) as [number, number];
  const next = event.currentTarget.querySelector<HTMLInputElement>(`[data-cell="${row + move[0]}:${col + move[1]}"]`);
  if (next !== null) {
    event.preventDefault();
    next.focus();
  }
}

export function RoleMatrix({ roles, columns, grantsFor, isDirty, saving, onToggle, onSave, onDiscard, onRename, onDelete }: RoleMatrixProps) {
  const channels = columns.filter((c) => c.kind === 'channel');
  const clients = columns.filter((c) => c.kind === 'client');
  const ordered = [...channels, ...clients];
  return (
    <div role="region" aria-label="Role grants" tabIndex={0} style={{ overflow: 'auto', maxHeight: 'calc(100vh - 290px)', minHeight: 200, border, borderRadius: 4 }}>
      <table style={{ borderCollapse: 'separate', borderSpacing: 0 }} aria-label="Roles by channel and client" onKeyDown={moveFocus}>
        <thead>
          <tr>
            <th rowSpan={2} scope="col" style={cornerStyle}>
              Role
            </th>
            {channels.length > 0 && (
              <th colSpan={channels.length} scope="colgroup" style={groupStyle}>
                <span style={stickyLabel}>Channels</span>
              </th>
            )}
            {clients.length > 0 && (
              <th colSpan={clients.length} scope="colgroup" style={groupStyle}>
                <span style={stickyLabel}>Clients</span>
              </th>
            )}
          </tr>
          <tr>
            {ordered.map((column, i) => (
              <th key={`${column.kind}:${column.id}`} scope="col" style={{ ...nameStyle, ...(i === channels.length && i > 0 ? { borderLeft: border } : {}) }}>
                <VerticalName title={`${column.kind === 'channel' ? 'Channel' : 'Client'} ${column.label}`}>{column.label}</VerticalName>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {roles.map((role, r) => {
            const grants = grantsFor(role);
            const dirty = isDirty(role);
            return (
              <tr key={role.name} style={dirty ? { background: 'var(--mantine-color-yellow-light)' } : undefined}>
                <th scope="row" style={{ ...rowHeadStyle, ...(dirty ? { background: 'var(--mantine-color-yellow-1)' } : {}) }}>
                  <Group gap={6} wrap="nowrap" justify="space-between">
                    <Text size="sm" fw={600} truncate title={role.name} style={{ minWidth: 0 }}>
                      {role.name}
                    </Text>
                    <Group gap={4} wrap="nowrap">
                      {dirty && (
                        <>
                          <Button size="compact-xs" onClick={() => onSave(role)} loading={saving === role.name} aria-label={`Save role ${role.name}`}>
                            Save
                          </Button>
                          <Button size="compact-xs" variant="subtle" onClick={() => onDiscard(role)} aria-label={`Discard changes to role ${role.name}`}>
                            Undo
                          </Button>
                        </>
                      )}
                      <Menu position="bottom-start" withinPortal>
                        <Menu.Target>
                          <Button size="compact-xs" variant="default" aria-label={`More actions for role ${role.name}`}>
                            ⋯
                          </Button>
                        </Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item onClick={() => onRename(role)}>Rename role</Menu.Item>
                          <Menu.Item color="red" onClick={() => onDelete(role)}>
                            Delete role
                          </Menu.Item>
                        </Menu.Dropdown>
                      </Menu>
                    </Group>
                  </Group>
                  {!dirty && grants.channels.length === 0 && (
                    <Tooltip label="Clients hold this role, but no channel admits it yet">
                      <Badge size="xs" color="gray" variant="light" mt={2}>
                        no channel
                      </Badge>
                    </Tooltip>
                  )}
                </th>
                {ordered.map((column, c) => {
                  const list = column.kind === 'channel' ? grants.channels : grants.clients;
                  const checked = list.includes(column.id);
                  return (
                    <td key={`${column.kind}:${column.id}`} style={{ ...cellStyle, ...(c === channels.length && c > 0 ? { borderLeft: border } : {}) }}>
                      <Checkbox
                        size="xs"
                        checked={checked}
                        onChange={(e) => onToggle(role, column, e.currentTarget.checked)}
                        aria-label={`role ${role.name} on ${column.kind} ${column.label}`}
                        data-cell={`${r}:${c}`}
                        styles={{ body: { justifyContent: 'center' } }}
                      />
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
