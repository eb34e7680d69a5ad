/**
 * Body sizes that decide how a body moves. Both the pipeline and the body store use them, so they live here, apart
 * from either: neither imports the other for a number.
 */

/**
 * Bodies of at most this many bytes are handled whole, in one buffer: a request declared this small is read before
 * routing and sent to every route as one buffer, an answer declared this small is read before it is sent on, and the
 * body store collects one this small and writes it with one call. Most clinical messages are a few KB, and one buffer
 * costs far less CPU than a stream fanned out per route or a file opened per body (measured in docs/BENCHMARKS.md).
 * Larger or chunked bodies stream.
 */
export const SMALL_BODY_BYTES = 64 * 1024;
