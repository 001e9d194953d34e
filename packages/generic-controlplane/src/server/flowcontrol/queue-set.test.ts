import { describe, expect, it } from "vitest";
import { FlowControlRejection, QueueSet, type Grant } from "./queue-set.js";
import { dealHand, flowHash } from "./shuffle-sharding.js";

const config = { queues: 64, handSize: 6, queueLengthLimit: 50 };

describe("shuffle sharding", () => {
  it("deals distinct cards within the deck, the same hand for the same flow", () => {
    for (const user of ["alice", "bob", "system:serviceaccount:default:x"]) {
      const hand = dealHand(flowHash("global-default", user), 64, 6);
      expect(new Set(hand).size).toBe(6);
      for (const card of hand) expect(card >= 0 && card < 64).toBe(true);
      expect(dealHand(flowHash("global-default", user), 64, 6)).toEqual(hand);
    }
    expect(dealHand(flowHash("global-default", "alice"), 64, 6)).not.toEqual(dealHand(flowHash("global-default", "bob"), 64, 6));
  });
});

describe("QueueSet", () => {
  it("does not let a heavy flow starve a light one: the light flow's requests go before the heavy backlog", async () => {
    const set = new QueueSet(2, config, 0);
    const heavy = dealHand(flowHash("global-default", "heavy"), 64, 6);
    const light = dealHand(flowHash("global-default", "light"), 64, 6);
    const order: string[] = [];
    const running: Grant[] = [];
    const take = (who: string, hand: number[]) =>
      Promise.resolve(set.acquire(hand)).then((grant) => {
        order.push(who);
        running.push(grant);
      });
    // The heavy flow takes both seats and queues 40 more.
    const heavyRequests = Array.from({ length: 42 }, () => take("heavy", heavy));
    await Promise.resolve();
    expect(set.executingSeats).toBe(2);
    // Then the light flow asks for 3.
    const lightRequests = Array.from({ length: 3 }, () => take("light", light));
    // Free seats one at a time, as requests finish.
    while (running.length > 0 || set.waitingRequests > 0) {
      running.shift()?.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([...heavyRequests, ...lightRequests]);
    const lightPositions = order.flatMap((who, i) => (who === "light" ? [i] : []));
    // Fair queuing interleaves the two flows: all three light requests run within the next
    // few dispatches, not after the 40 queued heavy ones.
    expect(lightPositions).toHaveLength(3);
    expect(Math.max(...lightPositions)).toBeLessThan(10);
  });

  it("starts a narrow request of another flow at once while the seats left are too few for the wide ones queued", async () => {
    const set = new QueueSet(49, config, 0);
    const lister = dealHand(flowHash("global-default", "lister"), 64, 6);
    const getter = dealHand(flowHash("global-default", "getter"), 64, 6);
    // Eight 10-seat LISTs: four run (40 of 49 seats), four wait.
    const lists = Array.from({ length: 8 }, () => Promise.resolve(set.acquire(lister, 10)));
    expect(set.executingSeats).toBe(40);
    expect(set.waitingRequests).toBe(4);
    const get = set.acquire(getter, 1);
    // The one-seat GET fits in the 9 free seats and finishes first in virtual time: it runs now.
    expect(set.executingSeats).toBe(41);
    expect(set.waitingRequests).toBe(4);
    (await get).release();
    const running = await Promise.all(lists.slice(0, 4));
    for (const grant of running) grant.release();
    expect(set.executingSeats).toBe(40);
    expect(set.waitingRequests).toBe(0);
  });

  it("rejects with queue-full once the flow's chosen queue holds queueLengthLimit requests; other flows still queue", () => {
    const set = new QueueSet(1, { queues: 1, handSize: 1, queueLengthLimit: 2 }, 0);
    void set.acquire([0]);
    void set.acquire([0]);
    void set.acquire([0]);
    expect(() => set.acquire([0])).toThrow(FlowControlRejection);
    try {
      void set.acquire([0]);
    } catch (error) {
      expect((error as FlowControlRejection).reason).toBe("queue-full");
      expect((error as FlowControlRejection).httpStatus).toBe(429);
    }
  });

  it("rejects at once when the level does not queue and every seat is taken", () => {
    const set = new QueueSet(1, { queues: 0, handSize: 0, queueLengthLimit: 0 }, 0);
    const grant = set.acquire([]) as Grant;
    expect(() => set.acquire([])).toThrow(/Too many requests/);
    grant.release();
    expect(set.acquire([])).toHaveProperty("release");
  });

  it("times a queued request out after the wait limit, and drops one whose client went away", async () => {
    const set = new QueueSet(1, config, 50);
    void set.acquire([0]);
    await expect(set.acquire([1])).rejects.toMatchObject({ reason: "time-out" });
    const controller = new AbortController();
    const waiting = set.acquire([2], 1, () => controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ reason: "cancelled" });
    expect(set.waitingRequests).toBe(0);
    // A signal that aborted before the request queued drops it at once.
    const gone = new AbortController();
    gone.abort();
    await expect(set.acquire([3], 1, () => gone.signal)).rejects.toMatchObject({ reason: "cancelled" });
    expect(set.waitingRequests).toBe(0);
    // A request admitted at once never asks for a signal.
    const fresh = new QueueSet(1, config, 50);
    let asked = 0;
    const grant = fresh.acquire([0], 1, () => {
      asked++;
      return new AbortController().signal;
    });
    expect(grant).toHaveProperty("release");
    expect(asked).toBe(0);
  });
});
