/** What `GET /events/:receivedTime` answers: OpenHIM's visualizer events. Import with `import type`. */

export type VisualizerEventType = 'channel' | 'primary' | 'route' | 'orchestration';

/** One start or end of a channel, its primary route, another route or a mediator's orchestration. */
export interface VisualizerEvent {
  channelID: string;
  transactionID: string;
  type: VisualizerEventType;
  event: 'start' | 'end';
  /** The channel's, route's or orchestration's name. */
  name: string;
  /** The response status; end events only, when there was a response. */
  status?: number;
  /** `error` for a 5xx or no response at all; end events only. */
  statusType?: 'success' | 'error';
  /** Epoch ms; end events of channels and primary routes are pushed 100 ms later, as OpenHIM's normalization does. */
  normalizedTimestamp: number;
  /** The mediator's urn, when known. */
  mediator?: string;
  autoRetryAttempt?: number;
}
