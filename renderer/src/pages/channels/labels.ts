/** How channel values are named and coloured in the console. */
import type { ChannelStatus, ChannelType } from '../../../../service/contracts/channels';

export const TYPE_LABEL: Record<ChannelType, string> = { http: 'HTTP', tcp: 'TCP', tls: 'TLS', polling: 'Polling' };

export const STATUS_COLOR: Record<ChannelStatus, string> = { enabled: 'teal', disabled: 'gray', deleted: 'red' };
