import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "./test-support.js";

const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** Sends the head and `prefix` of a POST whose declared body is longer, and keeps the socket open. */
function openSlowPost(t: TestPlane, name: string, prefix: number): { socket: Socket; body: string; response: Promise<string> } {
  const body = JSON.stringify(configMap(name));
  const { port } = new URL(t.url);
  const socket = connect(Number(port), "127.0.0.1");
  sockets.push(socket);
  socket.write(
    `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, prefix)}`,
  );
  let received = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
  const response = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  socket.on("error", () => undefined);
  return { socket, body, response };
}

/** Resolves once the server has seen `count` request heads (so their bodies are being waited for). */
function requestsSeen(t: TestPlane, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const deadline = setTimeout(() => reject(new Error(`the server saw ${seen} of ${count} requests`)), 10_000);
    t.plane.server.httpServer.on("request", () => {
      if (++seen >= count) {
        clearTimeout(deadline);
        resolve();
      }
    });
  });
}

function statusOf(raw: string): { code: number; headers: string; body: unknown } {
  const head = raw.slice(0, raw.indexOf("\r\n\r\n"));
  return {
    code: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
    headers: head.toLowerCase(),
    body: JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)),
  };
}

describe("slow request bodies", () => {
  it.each([
    ["max-in-flight", { enablePriorityAndFairness: false, maxMutatingRequestsInflight: 2 }],
    ["priority and fairness", { maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 }],
  ] as const)("do not hold seats (%s): writes from other clients still succeed", async (_mode, limits) => {
    const t = await startTestPlane(limits);
    try {
      const seen = requestsSeen(t, 5);
      for (let i = 0; i < 5; i++) openSlowPost(t, `slow-${i}`, 10);
      await seen;
      const created = await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("fast") });
      expect(created.status).toBe(201);
      expect((await t.call("DELETE", "/api/v1/namespaces/default/configmaps/fast")).status).toBe(200);
    } finally {
      for (const socket of sockets.splice(0)) socket.destroy();
      await t.close();
    }
  });

  it("answer 408 Timeout as a kube Status when no byte arrives within the idle deadline, and close the connection", async () => {
    const t = await startTestPlane({ bodyReadIdleTimeoutMs: 200 });
    try {
      const slow = openSlowPost(t, "stalled", 10);
      const reply = statusOf(await slow.response);
      expect(reply.code).toBe(408);
      expect(reply.headers).toContain("connection: close");
      expect(reply.body).toMatchObject({ kind: "Status", status: "Failure", reason: "Timeout", code: 408 });
      expect((reply.body as { message: string }).message).toMatch(/request body/);
      expect((await t.call("GET", "/api/v1/namespaces/default/configmaps/stalled")).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it("answer 408 when a body that trickles in never completes within the overall deadline", async () => {
    const t = await startTestPlane({ bodyReadIdleTimeoutMs: 10_000, bodyReadTimeoutMs: 400 });
    try {
      const slow = openSlowPost(t, "trickle", 1);
      let sent = 1;
      // One byte every 20 ms: always making progress, never finishing in time.
      timers.push(setInterval(() => sent < slow.body.length - 1 && !slow.socket.destroyed && slow.socket.write(slow.body[sent++]!), 20));
      const reply = statusOf(await slow.response);
      expect(reply.code).toBe(408);
      expect(reply.body).toMatchObject({ kind: "Status", reason: "Timeout", code: 408 });
    } finally {
      await t.close();
    }
  });

  it("still accept a body that arrives in pieces within the deadlines", async () => {
    const t = await startTestPlane({ bodyReadIdleTimeoutMs: 5_000 });
    try {
      const slow = openSlowPost(t, "pieces", 10);
      slow.socket.write(slow.body.slice(10, 20));
      slow.socket.end(slow.body.slice(20));
      expect(statusOf(await slow.response).code).toBe(201);
    } finally {
      await t.close();
    }
  });
});
