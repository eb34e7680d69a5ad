/**
 * The JSON body parser. JSON text must be UTF-8 (RFC 8259), and a body that is not would otherwise be decoded with
 * replacement characters and stored as "���": it is refused instead. Parsing itself stays Fastify's own, which keeps
 * its protection against `__proto__` and `constructor.prototype` keys.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Replaces Fastify's JSON parser with one that refuses a body that is not valid UTF-8 before parsing it. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Each decode() without `stream` starts afresh, so one decoder serves every request, even after refusing one.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(new AppError('INVALID_UTF8'), undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
