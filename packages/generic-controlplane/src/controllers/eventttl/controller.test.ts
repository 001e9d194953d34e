import { afterEach, describe, expect, it } from "vitest";
import { eventually, isGoneFrom, startControllers, type ControllerHarness } from "../test-support.js";
import { EVENTS, eventTTLController, lastWriteOf } from "./controller.js";

let h: ControllerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function event(name: string, lastTimestamp: string) {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "ConfigMap", name: "x", namespace: "default" },
    reason: "Test",
    message: "m",
    type: "Normal",
    firstTimestamp: lastTimestamp,
    lastTimestamp,
    count: 1,
  };
}

describe("eventttl controller", () => {
  it("reads the last write from the newest of the event's timestamps", () => {
    expect(
      lastWriteOf({
        metadata: { creationTimestamp: "2026-01-01T00:00:00Z", managedFields: [{ time: "2026-01-01T00:00:05Z" }] },
        lastTimestamp: "2026-01-01T00:00:03Z",
        series: { lastObservedTime: "2026-01-01T00:00:04.000000Z" },
      }),
    ).toBe(Date.parse("2026-01-01T00:00:05Z"));
  });

  it("deletes events a TTL after their last write, and keeps one whose later write moved its last write on", async () => {
    h = await startControllers([eventTTLController({ ttlMs: 1_500 })]);
    const { client } = h;
    const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    await client.create(EVENTS, "default", event("plain", now()));
    const refreshed = await client.create(EVENTS, "default", event("refreshed", now()));
    // Written again with a last timestamp 3 s on (a recorder bumping the count later).
    await client.patch(EVENTS, "default", "refreshed", {
      count: 2,
      lastTimestamp: new Date(Date.now() + 3_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    });
    await eventually("the plain event to go", async () => ((await isGoneFrom(client, EVENTS, "default", "plain")) ? true : undefined));
    expect((await client.get(EVENTS, "default", "refreshed")).metadata?.uid).toBe(refreshed.metadata?.uid);
    await eventually(
      "the refreshed event to go too",
      async () => ((await isGoneFrom(client, EVENTS, "default", "refreshed")) ? true : undefined),
      10_000,
    );
  });
});
