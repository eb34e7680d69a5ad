/** The question before "Re-run selected" (issue 36: no re-run starts without asking). */
/**
 * What a re-run of the chosen rows will do, in words: each goes through its channel's current routes again, so the
 * receiving systems may get a message a second time; chosen rows already re-run, or re-runs themselves, are named.
 */
export function selectedRerunSummary(ids: readonly string[], rows: readonly { _id: string; wasRerun?: boolean; parentID?: string }[]): string {
  const chosen = new Set(ids);
  const seen = rows.filter((r) => chosen.has(r._id));
  const already = seen.filter((r) => r.wasRerun === true).length;
  const reruns = seen.filter((r) => r.parentID !== undefined).length;
  const what = ids.length === 1 ? 'The selected transaction is' : `The ${ids.length} selected transactions are`;
  const notes = [
    already === 0 ? '' : `${already === 1 ? 'One of them was' : `${already} of them were`} already re-run.`,
    reruns === 0 ? '' : `${reruns === 1 ? 'One of them is itself a re-run' : `${reruns} of them are themselves re-runs`}.`,
  ].filter((n) => n !== '');
  return [`${what} sent again through ${ids.length === 1 ? 'its' : 'their'} channel's current routes, so the receiving systems may get ${ids.length === 1 ? 'the message' : 'the messages'} a second time.`, ...notes].join(' ');
}
