import { NetworkRegistryError } from "./errors.js";
import { parsePrefixOrAddress } from "./parse.js";
import { Prefix } from "./prefix.js";
import { normalizeRecord } from "./records.js";
import type { Grant } from "./registry-state.js";
import type { PrefixTrie } from "./trie.js";
import type { AddressRecord } from "./types.js";

/*
 * The answer to "who owns this address or range", read from the grant index: its own module
 * because it is a query with its own result shape, and the registry only hands it the index.
 */

/** One owner in a {@link WhoisResult}. */
export interface Owner {
  claim: string;
  record: AddressRecord;
  /** How the owner's prefix relates to the query. */
  relation: "exact" | "covering" | "covered";
}

export interface WhoisResult {
  query: string;
  /** The most specific allocated record containing the query (the answer to "who owns this IP"). */
  mostSpecific: Owner | undefined;
  exact: Owner[];
  /** Supernets, most specific first. */
  covering: Owner[];
  /** Subnets, in address order. */
  covered: Owner[];
}

/** Who owns an address or prefix in `trie`: the exact record, the covering ones and the covered ones. */
export function whois(trie: PrefixTrie<Grant[]>, query: string | Prefix): WhoisResult {
  let prefix: Prefix;
  if (typeof query === "string") prefix = parsePrefixOrAddress(query);
  else if (query instanceof Prefix) prefix = query;
  else
    throw new NetworkRegistryError(
      "invalid-argument",
      `whois takes an address or prefix string or a Prefix, got ${query === null ? "null" : typeof query}`,
    );
  const exact: Owner[] = [];
  const covering: Owner[] = [];
  const covered: Owner[] = [];
  for (const entry of trie.overlapping(prefix)) {
    const relation = entry.prefix.length === prefix.length ? "exact" : entry.prefix.length < prefix.length ? "covering" : "covered";
    for (const grant of entry.value) {
      const owner: Owner = { claim: grant.claim, record: normalizeRecord(grant.status), relation };
      (relation === "exact" ? exact : relation === "covering" ? covering : covered).push(owner);
    }
  }
  covering.reverse();
  const mostSpecific = [...exact, ...covering].find((o) => o.record.status === "allocated");
  const isAddress = typeof query === "string" && !query.includes("/");
  return { query: isAddress ? prefix.first().toString() : prefix.toString(), mostSpecific, exact, covering, covered };
}
