/**
 * Backups (admins only): `GET /backup` streams an archive of the whole appliance, taken online while traffic flows,
 * as a download named with its date; `GET /backup/status` tells the console how the current and last backups go and
 * lists the scheduled ones kept. Only one backup runs at a time: a second answers 409.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Backups } from '../../backup/backups.js';
import { requireAdmin } from '../guards.js';
import { NoQuery } from '../schemas/common.js';
import { BackupStatusSchema } from '../schemas/backup.js';

export interface BackupRoutesDeps {
  backups: Backups;
}

export function backupRoutes(deps: BackupRoutesDeps): FastifyPluginAsyncTypebox {
  const { backups } = deps;

  return async (app) => {
    app.get('/backup', { schema: { querystring: NoQuery } }, async (request, reply) => {
      const admin = requireAdmin(request, 'download backups');
      const { fileName, stream } = await backups.download();
      request.log.info({ by: admin.email, file: fileName }, 'backup download started');
      return reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    });

    app.get('/backup/status', { schema: { querystring: NoQuery, response: { 200: BackupStatusSchema } } }, async (request) => {
      requireAdmin(request, 'view backups');
      return backups.status();
    });
  };
}
