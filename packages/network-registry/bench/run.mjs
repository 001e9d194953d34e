import { containsCidr, overlapCidr } from "cidr-tools";
import ipaddr from "ipaddr.js";
import { FreeSpace, IPAddress, NetworkRegistry, Prefix, PrefixTrie, parseAddress, parsePrefix } from "../dist/index.js";
import { arbiterRows } from "./arbiter.mjs";
import { formatNs, measure, random, ratio, sink, table } from "./harness.mjs";

/*
 * Benchmarks for @kubekit/network-registry. Every figure is measured in this run, next to its
 * baseline: cidr-tools 12 (membership over string CIDRs) and a linear scan over pre-parsed
 * ipaddr.js values. Targets: lookup ≤ 100 ns at 100k prefixes (pre-parsed), claim check ≤ 5 µs
 * against 100k records, next free /24 in a /8 with 10k allocations ≤ 2 µs.
 */

const QUICK = process.argv.includes("--quick");
/** Calls per timing window; --quick does a fifth of the work. Fixed work, so any machine completes. */
const calls = (n) => Math.max(1, Math.round(QUICK ? n / 5 : n));
const next = random();
const results = [];

function v4Text(n) {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

// ---------------------------------------------------------------------------------------------
// 1. IP → owner lookups.

function buildV4(count) {
  const trie = new PrefixTrie();
  const prefixes = [];
  while (trie.size < count) {
    const length = 12 + (next() % 17); // /12 … /28
    const prefix = Prefix.from(new IPAddress(4, next()), length);
    if (trie.has(prefix)) continue;
    trie.insert(prefix, `owner-${trie.size}`);
    prefixes.push(prefix);
  }
  const queries = Array.from({ length: 4096 }, (_, i) => {
    if (i % 2 === 1) return new IPAddress(4, next());
    const p = prefixes[next() % prefixes.length];
    return new IPAddress(
      4,
      (p.w0 | (next() & ~((0xffffffff << (32 - p.length)) >>> 0) & (p.length === 0 ? 0xffffffff : 2 ** (32 - p.length) - 1))) >>> 0,
    );
  });
  return { trie, prefixes, queries };
}

function buildV6(count) {
  const trie = new PrefixTrie();
  const prefixes = [];
  while (trie.size < count) {
    const length = 40 + (next() % 25); // /40 … /64
    const prefix = Prefix.from(new IPAddress(6, (0xfd000000 | (next() & 0xffff)) >>> 0, next(), next(), next()), length);
    if (trie.has(prefix)) continue;
    trie.insert(prefix, `owner-${trie.size}`);
    prefixes.push(prefix);
  }
  const queries = Array.from({ length: 4096 }, (_, i) => {
    const p = prefixes[next() % prefixes.length];
    return i % 2 === 1
      ? new IPAddress(6, (0xfd000000 | (next() & 0xffff)) >>> 0, next(), next(), next())
      : new IPAddress(6, p.w0, p.w1, next(), next());
  });
  return { trie, prefixes, queries };
}

const lookupRows = [];
for (const count of [10_000, 100_000]) {
  const { trie, prefixes, queries } = buildV4(count);
  const mask = queries.length - 1;
  const words = Uint32Array.from(queries, (q) => q.w0);
  const texts = queries.map((q) => q.toString());
  const ours = measure((i) => trie.lookup(queries[i & mask]), { calls: calls(200_000) });
  const ours4 = measure((i) => trie.lookup4(words[i & mask]), { calls: calls(200_000) });
  const oursText = measure((i) => trie.lookup(texts[i & mask]), { calls: calls(100_000) });
  const cidrs = prefixes.map(String);
  const cidrTools = measure((i) => containsCidr(cidrs, texts[i & mask]), { calls: calls(count === 10_000 ? 20 : 3) });
  const parsed = prefixes.map((p) => [ipaddr.IPv4.parse(p.first().toString()), p.length]);
  const ipaddrQueries = texts.map((t) => ipaddr.IPv4.parse(t));
  const linear = measure(
    (i) => {
      const address = ipaddrQueries[i & mask];
      let best = -1;
      let owner = -1;
      for (let k = 0; k < parsed.length; k++) {
        const range = parsed[k];
        if (range[1] > best && address.match(range)) {
          best = range[1];
          owner = k;
        }
      }
      return owner;
    },
    { calls: calls(count === 10_000 ? 100 : 5) },
  );
  lookupRows.push([
    `IPv4, ${count / 1000}k prefixes`,
    formatNs(ours),
    formatNs(ours4),
    formatNs(oursText),
    formatNs(cidrTools),
    formatNs(linear),
    ratio(cidrTools, ours),
    ratio(linear, ours),
  ]);
  results.push({ name: `lookup v4 ${count}`, ns: ours, target: count === 100_000 ? 100 : undefined });
}
for (const count of [10_000, 100_000]) {
  const { trie, prefixes, queries } = buildV6(count);
  const mask = queries.length - 1;
  const texts = queries.map((q) => q.toString());
  const ours = measure((i) => trie.lookup(queries[i & mask]), { calls: calls(200_000) });
  const oursText = measure((i) => trie.lookup(texts[i & mask]), { calls: calls(100_000) });
  const cidrs = prefixes.map(String);
  const cidrTools = measure((i) => containsCidr(cidrs, texts[i & mask]), { calls: calls(count === 10_000 ? 20 : 3) });
  const parsed = prefixes.map((p) => [ipaddr.IPv6.parse(p.first().toString()), p.length]);
  const ipaddrQueries = texts.map((t) => ipaddr.IPv6.parse(t));
  const linear = measure(
    (i) => {
      const address = ipaddrQueries[i & mask];
      let best = -1;
      for (let k = 0; k < parsed.length; k++) if (parsed[k][1] > best && address.match(parsed[k])) best = parsed[k][1];
      return best;
    },
    { calls: calls(count === 10_000 ? 50 : 5) },
  );
  lookupRows.push([
    `IPv6, ${count / 1000}k prefixes`,
    formatNs(ours),
    "—",
    formatNs(oursText),
    formatNs(cidrTools),
    formatNs(linear),
    ratio(cidrTools, ours),
    ratio(linear, ours),
  ]);
  results.push({ name: `lookup v6 ${count}`, ns: ours, target: count === 100_000 ? 100 : undefined });
}
table(
  "IP → owner (longest match). ours = PrefixTrie.lookup on a parsed address; cidr-tools answers membership only",
  ["case", "ours", "ours lookup4", "ours + parse", "cidr-tools 12", "ipaddr.js linear", "vs cidr-tools", "vs linear"],
  lookupRows,
);

// ---------------------------------------------------------------------------------------------
// 2. Checking one new claim against 100k records.

const registry = new NetworkRegistry({ clock: () => new Date(0) });
const slots = Array.from({ length: 1 << 18 }, (_, i) => i); // the /26s of 10.0.0.0/8
for (let i = slots.length - 1; i > 0; i--) {
  const j = next() % (i + 1);
  [slots[i], slots[j]] = [slots[j], slots[i]];
}
const RECORDS = 100_000;
const buildStart = process.hrtime.bigint();
for (let c = 0; c < RECORDS / 100; c++) {
  const addressSpace = [];
  for (let r = 0; r < 100; r++) {
    addressSpace.push({ reference: { group: "", resource: "pods" }, prefix: `${v4Text((0x0a000000 + slots[c * 100 + r] * 64) >>> 0)}/26` });
  }
  registry.claim({ metadata: { name: `component-${c}` }, spec: { addressSpace } });
}
const buildNs = Number(process.hrtime.bigint() - buildStart);
const freeSlots = slots.slice(RECORDS, RECORDS + 4096).map((s) => `${v4Text((0x0a000000 + s * 64) >>> 0)}/26`);
const takenSlots = slots.slice(0, 4096).map((s) => `${v4Text((0x0a000000 + s * 64) >>> 0)}/26`);
const reference = { group: "", resource: "services" };
const freeRecords = freeSlots.map((prefix) => ({ reference, prefix }));
const takenRecords = takenSlots.map((prefix) => ({ reference, prefix }));
const checkFree = measure((i) => registry.check("newcomer", freeRecords[i & 4095]).status === "allocated", { calls: calls(20_000) });
const checkTaken = measure((i) => registry.check("newcomer", takenRecords[i & 4095]).conflict.nearestFree !== undefined, {
  calls: calls(4_000),
});
const allCidrs = registry.records().map((r) => r.record.prefix);
const cidrToolsOverlap = measure((i) => overlapCidr(allCidrs, freeSlots[i & 4095]), { calls: calls(3) });
const parsedRecords = allCidrs.map((c) => ipaddr.IPv4.parseCIDR(c));
const linearOverlap = measure(
  (i) => {
    const [address, length] = ipaddr.IPv4.parseCIDR(freeSlots[i & 4095]);
    for (const [other, otherLength] of parsedRecords) {
      if (address.match(other, otherLength) || other.match(address, length)) return true;
    }
    return false;
  },
  { calls: calls(10) },
);
// Baseline for a conflict: find the record in the way (binary search over the sorted starts of
// the /26s, the fastest simple index for this data), then step outwards one /26 at a time until
// a free one turns up (what a simple "nearest free" does).
const takenStarts = Uint32Array.from(allCidrs.map((c) => parseAddress(c.slice(0, c.indexOf("/"))).w0)).sort();
const isTaken = (start) => {
  let lo = 0;
  let hi = takenStarts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (takenStarts[mid] === start) return true;
    if (takenStarts[mid] < start) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
};
const nearestBaseline = (start) => {
  for (let k = 64; k < 1 << 24; k += 64) {
    if (start + k < 0x0b000000 && !isTaken(start + k)) return start + k;
    if (start - k >= 0x0a000000 && !isTaken(start - k)) return start - k;
  }
  return undefined;
};
const takenWords = takenSlots.map((t) => parseAddress(t.slice(0, t.indexOf("/"))).w0);
const sortedConflict = measure((i) => isTaken(takenWords[i & 4095]) && nearestBaseline(takenWords[i & 4095]), { calls: calls(20_000) });
const linearConflict = measure(
  (i) => {
    const [address, length] = ipaddr.IPv4.parseCIDR(takenSlots[i & 4095]);
    for (const [other, otherLength] of parsedRecords) {
      if (address.match(other, otherLength) || other.match(address, length)) return nearestBaseline(takenWords[i & 4095]);
    }
    return undefined;
  },
  { calls: calls(10) },
);
// The nearest-free search where it has the most to step over: a /26 in the middle of a /18 whose
// 256 /26s are all taken, so the nearest free block is at least 128 blockers away.
const dense = parsePrefix("10.200.64.0/18");
const denseFill = dense
  .split(26)
  .filter((p) => !isTaken(p.w0))
  .map((p) => ({ reference, prefix: p.toString() }));
registry.claim({ metadata: { name: "dense" }, spec: { addressSpace: denseFill } });
const denseRecord = { reference, prefix: "10.200.96.0/26" };
const denseTakenStarts = new Set(dense.split(26).map((p) => p.w0));
const denseNearest = measure(() => registry.check("newcomer", denseRecord).conflict.nearestFree, { calls: calls(500) });
const denseBaseline = measure(
  () => {
    const start = parsePrefix(denseRecord.prefix).w0;
    for (let k = 64; ; k += 64) {
      for (const candidate of [start + k, start - k]) if (!denseTakenStarts.has(candidate) && !isTaken(candidate)) return candidate;
    }
  },
  { calls: calls(2_000) },
);
table(
  `Check one new record against ${RECORDS / 1000}k records (${allCidrs.length} registered in ${(buildNs / 1e6).toFixed(0)} ms, ${formatNs(buildNs / RECORDS)} per record)`,
  ["case", "ours", "cidr-tools overlapCidr", "ipaddr.js linear", "sorted array", "vs cidr-tools", "vs linear", "vs sorted"],
  [
    [
      "free /26 (grants)",
      formatNs(checkFree),
      formatNs(cidrToolsOverlap),
      formatNs(linearOverlap),
      "",
      ratio(cidrToolsOverlap, checkFree),
      ratio(linearOverlap, checkFree),
      "",
    ],
    [
      "taken /26: conflict, explanation, nearest free /26",
      formatNs(checkTaken),
      "—",
      formatNs(linearConflict),
      formatNs(sortedConflict),
      "",
      ratio(linearConflict, checkTaken),
      ratio(sortedConflict, checkTaken),
    ],
    [
      "taken /26 with 256 taken neighbours (nearest free 128+ blocks away)",
      formatNs(denseNearest),
      "—",
      "—",
      formatNs(denseBaseline),
      "",
      "",
      ratio(denseBaseline, denseNearest),
    ],
  ],
);
results.push({ name: "claim check 100k (free)", ns: checkFree, target: 5000 });
results.push({ name: "claim check 100k (conflict + nearest free suggestion)", ns: checkTaken, target: 10_000 });

// ---------------------------------------------------------------------------------------------
// 3. Next free /24 in a /8 holding 10k allocations.

const ipam = new NetworkRegistry({ clock: () => new Date(0) });
ipam.claim({
  metadata: { name: "kube-controller-manager" },
  spec: { addressSpace: [{ reference: { group: "", resource: "pods" }, prefix: "10.0.0.0/8" }] },
});
const node = { group: "", resource: "nodes" };
for (let i = 0; i < 10_000; i++)
  ipam.allocate({ claim: "kube-controller-manager", reference: node, from: "10.0.0.0/8", prefixLength: 24, strategy: "first-fit" });
// Release every third block so free space is fragmented, as in a long-lived cluster.
const held = ipam.allocations("kube-controller-manager").map((a) => a.record.prefix);
for (let i = 0; i < held.length; i += 3) ipam.releaseRecord("kube-controller-manager", held[i]);
const pool = parsePrefix("10.0.0.0/8");
// The allocator alone: the pool's free space as the registry keeps it (a buddy system).
const space = new FreeSpace(
  pool,
  ipam
    .records()
    .map((r) => parsePrefix(r.record.prefix))
    .filter((p) => p.length > 8),
);
const searchFirstFit = measure(
  () => {
    const block = space.take(24, "first-fit");
    space.release(block);
    return block;
  },
  { calls: calls(50_000) },
);
const searchBestFit = measure(
  () => {
    const block = space.take(24, "best-fit");
    space.release(block);
    return block;
  },
  { calls: calls(50_000) },
);
const allocateAndRelease = measure(
  () => {
    const record = ipam.allocate({
      claim: "kube-controller-manager",
      reference: node,
      from: pool,
      prefixLength: 24,
      strategy: "first-fit",
    });
    ipam.releaseRecord("kube-controller-manager", record.prefix);
    return record;
  },
  { calls: calls(10_000) },
);
let allocated = 0;
const allocateOnly = measure(
  () => {
    allocated++;
    return ipam.allocate({ claim: "kube-controller-manager", reference: node, from: pool, prefixLength: 24, strategy: "best-fit" });
  },
  { calls: calls(2_000), warmup: calls(500) },
); // 10,500 blocks at most: the pool has ~58k free /24s
// Baseline: a sorted list of taken /24 starts scanned for the first gap (what a simple IPAM does).
const taken = Uint32Array.from(
  ipam
    .records()
    .filter((r) => r.record.prefix.endsWith("/24"))
    .map((r) => parseAddress(r.record.prefix.slice(0, -3)).w0),
).sort();
const linearNextFree = measure(
  () => {
    let candidate = 0x0a000000;
    for (let k = 0; k < taken.length; k++) {
      if (taken[k] > candidate) break;
      if (taken[k] === candidate) candidate += 256;
    }
    return candidate;
  },
  { calls: calls(500) },
);
table(
  `Next free /24 in 10.0.0.0/8 with 10k allocations (every third released; ${allocated} more taken while measuring)`,
  ["case", "ours", "sorted-array scan", "vs scan"],
  [
    [
      "find next free /24: FreeSpace take + release (first-fit)",
      formatNs(searchFirstFit),
      formatNs(linearNextFree),
      ratio(linearNextFree, searchFirstFit),
    ],
    ["find next free /24: FreeSpace take + release (best-fit)", formatNs(searchBestFit), "", ""],
    ["registry.allocate (best-fit; search + record + index)", formatNs(allocateOnly), "", ratio(linearNextFree, allocateOnly)],
    ["registry.allocate + releaseRecord (first-fit)", formatNs(allocateAndRelease), "", ""],
  ],
);
results.push({ name: "next free /24 (allocator search)", ns: searchFirstFit, target: 2000 });
results.push({ name: "next free /24 (registry.allocate, with record keeping)", ns: allocateOnly, target: 2000 });

// ---------------------------------------------------------------------------------------------
// 4. Parse cost per string.

const v4Addresses = Array.from({ length: 1024 }, () => v4Text(next()));
const v4Prefixes = Array.from({ length: 1024 }, () => Prefix.from(new IPAddress(4, next()), 8 + (next() % 25)).toString());
const v6Addresses = Array.from({ length: 1024 }, () => new IPAddress(6, 0x20010db8, (next() & 0xffff0000) >>> 0, 0, next()).toString());
const v6Prefixes = Array.from({ length: 1024 }, () =>
  Prefix.from(new IPAddress(6, (0xfd000000 | (next() & 0xffffff)) >>> 0, next(), 0, 0), 48 + (next() % 17)).toString(),
);
const parseRows = [];
for (const [name, inputs, ours, baseline] of [
  ["IPv4 address", v4Addresses, parseAddress, (t) => ipaddr.IPv4.parse(t)],
  ["IPv4 prefix", v4Prefixes, parsePrefix, (t) => ipaddr.IPv4.parseCIDR(t)],
  ["IPv6 address", v6Addresses, parseAddress, (t) => ipaddr.IPv6.parse(t)],
  ["IPv6 prefix", v6Prefixes, parsePrefix, (t) => ipaddr.IPv6.parseCIDR(t)],
]) {
  const oursNs = measure((i) => ours(inputs[i & 1023]), { calls: calls(50_000) });
  const baselineNs = measure((i) => baseline(inputs[i & 1023]), { calls: calls(20_000) });
  const genericNs = measure((i) => (name.endsWith("prefix") ? ipaddr.parseCIDR(inputs[i & 1023]) : ipaddr.parse(inputs[i & 1023])), {
    calls: calls(10_000),
  });
  parseRows.push([name, formatNs(oursNs), formatNs(baselineNs), formatNs(genericNs), ratio(baselineNs, oursNs)]);
  results.push({ name: `parse ${name}`, ns: oursNs });
}
table(
  "Parse cost per string (ours is strict: canonical form only, host bits checked)",
  ["input", "ours", "ipaddr.js IPvN.parse*", "ipaddr.js parse*", "vs IPvN"],
  parseRows,
);

// ---------------------------------------------------------------------------------------------
// 5. The arbiter through the API server (wall time until every object carries its decision).

const arbiter = await arbiterRows({ quick: QUICK });
table(
  "The arbiter through the API (control plane in its own process; arbiter and creating clients in this one), against the pure registry deciding the same",
  [
    "work",
    "arbiter deciding them once stored",
    "while being created: all decided after",
    "all created after",
    "decided after the last creation",
    "pure registry",
    "pure registry per decision",
  ],
  arbiter.rows,
);
for (const line of arbiter.goals) console.log(line);

// ---------------------------------------------------------------------------------------------

console.log("\nTargets");
for (const r of results.filter((r) => r.target !== undefined)) {
  console.log(`  ${r.ns <= r.target ? "met " : "MISS"}  ${r.name}: ${formatNs(r.ns)} (target ≤ ${formatNs(r.target)})`);
}
console.log(`\nNode ${process.version} · sink ${sink & 1}`);
