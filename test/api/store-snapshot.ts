/** Everything a management request could write, read straight from the stores, to show a refused request wrote nothing. */
import type { TestJunction } from '../helpers/junction.js';

/** The records of every configuration collection and the transaction count, as comparable JSON. */
export async function storeSnapshot(t: TestJunction): Promise<string> {
  const { store, transactions } = t.junction;
  // Sessions and audits are left out: they record who called, which a refused request may rightly do.
  const collections = { users: store.users, channels: store.channels, clients: store.clients, mediators: store.mediators, tasks: store.tasks, taskTransactions: store.taskTransactions, autoRetries: store.autoRetries, contactGroups: store.contactGroups };
  const contents: Record<string, unknown> = {};
  for (const [name, collection] of Object.entries(collections)) {
    const records = (await collection.find({}, { sort: { _id: 1 } })) as unknown[];
    contents[name] = records;
  }
  contents.transactions = await transactions.count({});
  return JSON.stringify(contents);
}
