/** The public view of a mediator, as every answer but the heartbeat shows it (the heartbeat hands the mediator its real configuration). */
import { maskConfig } from '../../domain/channels/mediator-config.js';
import { PASSWORD_MASK } from '../../domain/util/password-mask.js';
import type { MediatorRecord, MediatorRoute } from '../../storage/records.js';
import type { PublicMediator } from '../schemas/mediators.js';

function maskRoute<T extends MediatorRoute>(route: T): T {
  return route.password === undefined || route.password === null || route.password === '' ? route : { ...route, password: PASSWORD_MASK };
}

/** The answer view: passwords masked (routes and config), dates as text, online status from the heartbeats. */
export function publicMediator(mediator: MediatorRecord, online: boolean): PublicMediator {
  const { _configModifiedTS, _lastHeartbeat, createdAt, updatedAt, ...rest } = mediator;
  return {
    ...rest,
    endpoints: mediator.endpoints.map(maskRoute),
    defaultChannelConfig: mediator.defaultChannelConfig.map((c) => ({ ...c, routes: c.routes.map(maskRoute) })),
    config: maskConfig(mediator.configDefs, mediator.config),
    online,
    ...(_lastHeartbeat === undefined ? {} : { _lastHeartbeat: _lastHeartbeat.toISOString() }),
    ...(_configModifiedTS === undefined ? {} : { _configModifiedTS: _configModifiedTS.toISOString() }),
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}
