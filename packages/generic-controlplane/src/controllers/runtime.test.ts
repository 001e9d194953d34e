import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { KubeClient } from "./client.js";
import { EventRecorder, MAX_QUEUED_EVENTS } from "./runtime.js";

/** An events endpoint that records every Event posted and answers when `answer` lets it. */
async function eventsEndpoint(answer: (respond: () => void) => void) {
  const received: Array<{ reason: string }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push(JSON.parse(body) as { reason: string });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      answer(() => {
        inFlight--;
        res.writeHead(201, { "Content-Type": "application/json" }).end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    maxInFlight: () => maxInFlight,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const involved = { apiVersion: "v1", kind: "Pod", namespace: "default", name: "web-0", uid: "u1" };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("EventRecorder", () => {
  it("writes events one at a time, in the order they were recorded", async () => {
    const endpoint = await eventsEndpoint((respond) => setTimeout(respond, 2));
    const client = new KubeClient(endpoint.url);
    cleanups.push(endpoint.close, () => client.close());
    const recorder = new EventRecorder(client, "test-controller");
    const reasons = Array.from({ length: 20 }, (_, i) => `Reason${i}`);
    await Promise.all(reasons.map((reason) => recorder.event(involved, "Normal", reason, "message")));
    expect(endpoint.received.map((event) => event.reason)).toEqual(reasons);
    expect(endpoint.maxInFlight()).toBe(1);
  });

  it("drops events beyond the queue while the server does not answer, and writes the queued ones once it does", async () => {
    const held: Array<() => void> = [];
    const endpoint = await eventsEndpoint((respond) => held.push(respond));
    const client = new KubeClient(endpoint.url);
    cleanups.push(endpoint.close, () => client.close());
    const warnings: unknown[] = [];
    const recorder = new EventRecorder(client, "test-controller", (entry) => warnings.push(entry));
    const written: Array<Promise<void>> = [];
    // One in flight, MAX_QUEUED_EVENTS waiting behind it, five more dropped.
    for (let i = 0; i < 1 + MAX_QUEUED_EVENTS + 5; i++) written.push(recorder.event(involved, "Normal", `Reason${i}`, "message"));
    await Promise.all(written.slice(-5));
    expect(warnings).toHaveLength(5);
    expect(warnings[0]).toMatchObject({ level: "warn", msg: "event queue full, event dropped", reason: `Reason${1 + MAX_QUEUED_EVENTS}` });
    await new Promise<void>((resolve) => {
      const release = () => {
        const respond = held.shift();
        if (respond !== undefined) respond();
        if (endpoint.received.length === 1 + MAX_QUEUED_EVENTS && held.length === 0) resolve();
        else setImmediate(release);
      };
      release();
    });
    await Promise.all(written);
    expect(endpoint.received).toHaveLength(1 + MAX_QUEUED_EVENTS);
    expect(endpoint.received.at(-1)?.reason).toBe(`Reason${MAX_QUEUED_EVENTS}`);
    expect(endpoint.maxInFlight()).toBe(1);
  });
});
