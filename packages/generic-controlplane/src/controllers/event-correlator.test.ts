import { describe, expect, it } from "vitest";
import { EventCorrelator, type CorrelatedEvent } from "./event-correlator.js";

// Behaviour of client-go's tools/record/events_cache.go (TestEventCorrelator), on our objects.

let serial = 0;
function event(message: string, reason = "ClaimConflict", name = "claim-a"): CorrelatedEvent {
  const now = new Date(1_700_000_000_000 + serial * 1000).toISOString();
  return {
    metadata: { name: `${name}.${serial++}`, namespace: "default" },
    involvedObject: { apiVersion: "kana.kubekit.io/v1alpha1", kind: "NetworkClaim", name, uid: `uid-${name}` },
    reason,
    message,
    type: "Warning",
    source: { component: "kana-arbiter" },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}

/** Writes as the recorder does: a patch updates the stored event, otherwise a new one is stored. */
function record(correlator: EventCorrelator, stored: Map<string, CorrelatedEvent>, input: CorrelatedEvent): CorrelatedEvent {
  const { event: out, patch } = correlator.correlate(input);
  const saved =
    patch !== undefined
      ? { ...stored.get(out.metadata.name)!, ...patch }
      : { ...out, metadata: { ...out.metadata, resourceVersion: String(serial) } };
  stored.set(saved.metadata.name, saved);
  correlator.observe(saved);
  return saved;
}

describe("EventCorrelator", () => {
  it("counts a repeated event on the one written first, keeping its first and moving its last timestamp", () => {
    const correlator = new EventCorrelator();
    const stored = new Map<string, CorrelatedEvent>();
    const first = record(correlator, stored, event("overlaps 10.0.0.0/24 of claim b"));
    const again = event("overlaps 10.0.0.0/24 of claim b");
    const { event: counted, patch } = correlator.correlate(again);
    expect(patch).toEqual({ count: 2, lastTimestamp: again.lastTimestamp, message: again.message });
    expect(counted.metadata.name).toBe(first.metadata.name);
    expect(counted.firstTimestamp).toBe(first.firstTimestamp);
    expect(record(correlator, stored, again).count).toBe(2);
    expect(record(correlator, stored, event("overlaps 10.0.0.0/24 of claim b")).count).toBe(3);
    expect(stored.size).toBe(1);
  });

  it("writes a new event for another message, reason or object", () => {
    const correlator = new EventCorrelator();
    const stored = new Map<string, CorrelatedEvent>();
    record(correlator, stored, event("one"));
    record(correlator, stored, event("two"));
    record(correlator, stored, event("one", "ClaimAllocated"));
    record(correlator, stored, event("one", "ClaimConflict", "claim-b"));
    expect([...stored.values()].map((e) => e.count)).toEqual([1, 1, 1, 1]);
  });

  it("combines similar events (same object and reason) once ten messages were seen within the window", () => {
    let now = 0;
    const correlator = new EventCorrelator({ now: () => now });
    const stored = new Map<string, CorrelatedEvent>();
    for (let i = 0; i < 9; i++) record(correlator, stored, event(`message ${i}`));
    expect(stored.size).toBe(9);
    const combined = record(correlator, stored, event("message 9"));
    expect(combined.message).toBe("(combined from similar events): message 9");
    const next = record(correlator, stored, event("message 10"));
    expect(next.metadata.name).toBe(combined.metadata.name);
    expect(next).toMatchObject({ count: 2, message: "(combined from similar events): message 10" });
    expect(stored.size).toBe(10);
    // After the window, messages are counted afresh.
    now += 600_001;
    expect(record(correlator, stored, event("message 11")).message).toBe("message 11");
  });

  it("forgets the least recently seen events beyond its size", () => {
    const correlator = new EventCorrelator({ maxEntries: 2 });
    const stored = new Map<string, CorrelatedEvent>();
    record(correlator, stored, event("a", "R", "x"));
    record(correlator, stored, event("b", "R", "y"));
    record(correlator, stored, event("c", "R", "z"));
    expect(correlator.correlate(event("a", "R", "x")).patch).toBeUndefined();
    expect(correlator.correlate(event("c", "R", "z")).patch?.count).toBe(2);
  });
});
