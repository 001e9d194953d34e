import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

/*
 * Every public function validates its input first: whatever it is given, it returns or throws a
 * NetworkRegistryError (never a TypeError, RangeError or DOMException), and a call that throws
 * leaves the registry exactly as it was.
 */

const { NetworkRegistry, FreeSpace, Prefix, PrefixTrie, SpecialPurposePolicy, IPAddress, isNetworkRegistryError } = api;
const clock = () => new Date("2026-01-01T00:00:00.000Z");
const pods = { group: "", resource: "pods" };

/** Values that are almost right as often as they are wrong. */
const text = fc.oneof(
  fc.constantFrom(
    "10.0.0.0/8",
    "10.1.0.0/16",
    "10.1.2.0/24",
    "fd00::/64",
    "10.0.0.1",
    "::1",
    "10.0.0.1/24",
    "10.1/16",
    " 10.0.0.0/8",
    "",
    "/",
    "::/0",
    "alpha",
    "kube-apiserver",
  ),
  fc.string({ maxLength: 12 }),
);
const weird = fc.oneof(
  text,
  fc.constantFrom(undefined, null, 0, -1, 1.5, Number.NaN, 1e30, 24, 33, 129, true, [], {}, Symbol("x"), () => 1, 10n, new Date(0)),
  fc.anything({ maxDepth: 2 }),
);
const reference = fc.oneof(fc.constant(pods), fc.record({ group: weird, resource: weird }), weird);
const record = fc.oneof(
  fc.record({ reference, prefix: text }),
  fc.record(
    { reference, prefix: weird, description: weird, status: weird, parent: weird, delegateTo: weird },
    { requiredKeys: ["prefix"] },
  ),
  weird,
);
const claim = fc.oneof(
  fc.record({ metadata: fc.record({ name: text }), spec: fc.record({ addressSpace: fc.array(record, { maxLength: 3 }) }) }),
  fc.record({
    metadata: fc.oneof(fc.record({ name: weird, labels: weird, annotations: weird }), weird),
    spec: fc.oneof(fc.record({ addressSpace: weird }), weird),
  }),
  weird,
);
const prefixValue = fc.oneof(fc.constantFrom(...["10.0.0.0/8", "10.1.0.0/16", "fd00::/64"].map((p) => api.parsePrefix(p))), weird);

type Call = [string, (registry: InstanceType<typeof NetworkRegistry>) => unknown];

const call: fc.Arbitrary<Call> = fc.oneof(
  fc.tuple(fc.constant("claim"), claim).map(([n, c]): Call => [n, (r) => r.claim(c as never)]),
  fc.tuple(fc.constant("check"), weird, record).map(([n, a, b]): Call => [n, (r) => r.check(a as never, b as never)]),
  fc.tuple(fc.constant("release"), weird, weird).map(([n, a, b]): Call => [n, (r) => r.release(a as never, b as never)]),
  fc
    .tuple(fc.constant("releaseRecord"), weird, prefixValue, weird)
    .map(([n, a, b, c]): Call => [n, (r) => r.releaseRecord(a as never, b as never, c as never)]),
  fc
    .tuple(
      fc.constant("allocate"),
      fc.oneof(
        fc.record(
          { claim: text, reference, from: prefixValue, prefixLength: weird, strategy: weird, description: weird },
          { requiredKeys: ["claim", "from", "prefixLength"] },
        ),
        weird,
      ),
    )
    .map(([n, a]): Call => [n, (r) => r.allocate(a as never)]),
  fc.tuple(fc.constant("whois"), prefixValue).map(([n, a]): Call => [n, (r) => r.whois(a as never)]),
  fc.tuple(fc.constant("utilization"), prefixValue).map(([n, a]): Call => [n, (r) => r.utilization(a as never)]),
  fc.tuple(fc.constant("freeBlocks"), prefixValue).map(([n, a]): Call => [n, (r) => r.freeBlocks(a as never)]),
  fc.tuple(fc.constant("get"), weird).map(([n, a]): Call => [n, (r) => r.get(a as never)]),
  fc.tuple(fc.constant("allocations"), weird).map(([n, a]): Call => [n, (r) => r.allocations(a as never)]),
  fc.tuple(fc.constant("restore"), weird).map(([n, a]): Call => [n, () => NetworkRegistry.restore(a as never, { clock })]),
);

function expectTyped(name: string, fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (error) {
    expect(isNetworkRegistryError(error), `${name} threw ${String(error)}`).toBe(true);
    return false;
  }
}

describe("public API: typed errors and atomic failure", () => {
  it("NetworkRegistry methods throw only NetworkRegistryError, and a failed call changes nothing", () => {
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 12 }), (calls) => {
        const registry = new NetworkRegistry({ clock });
        registry.claim({
          metadata: { name: "kcm" },
          spec: {
            addressSpace: [
              { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["*"] },
              { reference: pods, prefix: "10.96.0.0/12", status: "unavailable" },
            ],
          },
        });
        for (const [name, fn] of calls) {
          const before = JSON.stringify(registry.snapshot());
          const generation = registry.generation;
          if (!expectTyped(name, () => fn(registry))) {
            expect(JSON.stringify(registry.snapshot()), `${name} changed the registry and threw`).toBe(before);
            expect(registry.generation).toBe(generation);
          }
          // Every state the registry reaches must survive a snapshot round trip.
          expect(NetworkRegistry.restore(JSON.parse(JSON.stringify(registry.snapshot())) as never, { clock }).snapshot()).toEqual(
            registry.snapshot(),
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it("parsing, prefix math, the trie, FreeSpace and the policy throw only NetworkRegistryError", () => {
    const calls: [string, (a: unknown, b: unknown) => unknown][] = [
      ["parseAddress", (a, b) => api.parseAddress(a as never, b as never)],
      ["parsePrefix", (a, b) => api.parsePrefix(a as never, b as never)],
      ["parsePrefixOrAddress", (a) => api.parsePrefixOrAddress(a as never)],
      ["fixPrefix", (a) => api.fixPrefix(a as never)],
      ["fixAddress", (a) => api.fixAddress(a as never)],
      ["isCanonicalPrefix", (a) => api.isCanonicalPrefix(a as never)],
      ["Prefix.from", (a, b) => Prefix.from(a as never, b as never)],
      ["Prefix.all", (a) => Prefix.all(a as never)],
      ["new IPAddress", (a, b) => new IPAddress(a as never, b as never)],
      ["contains", (a) => api.parsePrefix("10.0.0.0/8").contains(a as never)],
      ["overlaps", (a) => api.parsePrefix("10.0.0.0/8").overlaps(a as never)],
      ["equals", (a) => api.parsePrefix("10.0.0.0/8").equals(a as never)],
      ["compare", (a) => api.parsePrefix("10.0.0.0/8").compare(a as never)],
      ["subtract", (a) => api.parsePrefix("10.0.0.0/8").subtract(a as never)],
      ["split", (a) => api.parsePrefix("10.0.0.0/8").split(a as never)],
      ["supernet", (a) => api.parsePrefix("10.0.0.0/8").supernet(a as never)],
      ["child", (a) => api.parsePrefix("10.0.0.0/8").child(a as never)],
      ["trie.insert", (a, b) => new PrefixTrie().insert(a as never, b)],
      ["trie.lookup", (a) => new PrefixTrie().lookup(a as never)],
      ["trie.lookup4", (a) => new PrefixTrie().lookup4(a as never)],
      ["trie.covering", (a) => new PrefixTrie().covering(a as never)],
      ["trie.remove", (a) => new PrefixTrie().remove(a as never)],
      ["new FreeSpace", (a, b) => new FreeSpace(a as never, b as never)],
      ["FreeSpace.take", (a, b) => new FreeSpace(api.parsePrefix("10.0.0.0/16"), []).take(a as never, b as never)],
      ["FreeSpace.release", (a) => new FreeSpace(api.parsePrefix("10.0.0.0/16"), [api.parsePrefix("10.0.1.0/24")]).release(a as never)],
      ["new SpecialPurposePolicy", (a) => new SpecialPurposePolicy(a as never)],
      ["policy.check", (a) => api.defaultSpecialPurposePolicy.check(a as never)],
      ["new NetworkRegistry", (a) => new NetworkRegistry(a as never)],
      ["validateClaim", (a) => api.validateClaim(a)],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...calls),
        fc.oneof(weird, prefixValue),
        fc.oneof(weird, prefixValue, fc.array(prefixValue, { maxLength: 2 })),
        ([name, fn], a, b) => {
          expectTyped(name, () => fn(a, b));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
