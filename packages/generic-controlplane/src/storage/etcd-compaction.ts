import type * as RPC from "etcd3";

/**
 * kube-apiserver's etcd compaction (k8s.io/apiserver storage/etcd3/compact.go), so that every
 * server on one etcd, ours or kube-apiserver, takes part in one schedule:
 *
 * - `compact_rev_key`, at the root of etcd's key space, holds the revision the next compaction
 *   goes to; its version counts the rounds, the logical time every server compares against its own.
 * - Each interval a server writes the current revision to the key if the key's version is the one
 *   it last saw. The server that wins compacts to the revision written one round earlier, so etcd
 *   always keeps at least one interval of history; the others learn the new version and try again
 *   an interval later. A server that starts records a revision and compacts nothing.
 */
export const COMPACT_REV_KEY = "compact_rev_key";

/** What a server knows between rounds: the key's version it last saw, and the revision it recorded. */
export interface CompactionRound {
  time: number;
  revision: number;
}

export const FIRST_ROUND: CompactionRound = { time: 0, revision: 0 };

/**
 * One round (upstream `compact`): the round to remember next and the revision to compact to now,
 * if this server won the round and it is not the first.
 */
export async function compactionRound(
  txn: (request: RPC.ITxnRequest) => Promise<RPC.ITxnResponse>,
  round: CompactionRound,
): Promise<{ next: CompactionRound; compactTo: number | undefined }> {
  const key = Buffer.from(COMPACT_REV_KEY);
  const response = await txn({
    compare: [{ key, target: "Version", result: "Equal", version: round.time }],
    success: [{ request_put: { key, value: Buffer.from(String(round.revision)) } }],
    failure: [{ request_range: { key } }],
  });
  const current = Number(response.header.revision);
  if (!response.succeeded) {
    const seen = response.responses[0]?.response_range.kvs[0];
    return { next: { time: seen === undefined ? 0 : Number(seen.version), revision: current }, compactTo: undefined };
  }
  return { next: { time: round.time + 1, revision: current }, compactTo: round.revision === 0 ? undefined : round.revision };
}
