/**
 * One page of a scan that SQL could not narrow (a filter checked in JavaScript): skip the first `skip` matches, keep
 * the next `limit`, and stop reading there. Every engine's scanned pages go through this, so they agree on the edges.
 */
export async function takePage<T, R = T>(matches: AsyncIterable<T>, skip: number, limit: number, decode: (item: T) => R = (item) => item as unknown as R): Promise<R[]> {
  const page: R[] = [];
  if (limit <= 0) return page;
  let skipped = 0;
  for await (const item of matches) {
    if (skipped < skip) {
      skipped++;
      continue;
    }
    page.push(decode(item));
    if (page.length === limit) break;
  }
  return page;
}
