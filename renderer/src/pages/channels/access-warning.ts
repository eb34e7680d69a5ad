/**
 * Whether the channel being edited would admit anyone (issue 35), as the service decides it on save
 * (`admitsNobody` in its answer): a private channel needs a whitelisted address, or a client named by id or role in
 * its allowed lists, and a plain tcp channel can only let addresses in. Null when someone may use it.
 */
import type { ClientChoice } from '../../api/channels';
import type { ChannelForm } from './form';

export function nobodyAdmitted(form: Pick<ChannelForm, 'type' | 'authType' | 'allowClients' | 'allowRoles' | 'whitelist'>, clients: readonly Pick<ClientChoice, 'clientID' | 'roles'>[]): string | null {
  if (form.authType !== 'private' || form.type === 'polling') return null;
  if (form.whitelist.some((a) => a.trim() !== '')) return null;
  if (form.type === 'tcp') return 'A private tcp channel cannot identify clients, so only whitelisted IP addresses may send to it, and there are none.';
  const allowed = [...form.allowClients, ...form.allowRoles];
  if (allowed.length === 0) return 'It is private and allows no client, role or IP address.';
  if (allowed.includes('*')) return clients.length > 0 ? null : 'It allows every client (*), but no client exists yet.';
  const named = new Set(allowed);
  if (clients.some((c) => named.has(c.clientID) || c.roles.some((r) => named.has(r)))) return null;
  return 'Its allowed clients and roles name no existing client, and it has no whitelisted IP address.';
}
