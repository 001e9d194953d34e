import type { TrafficClient } from "../driver/types.js";
import { fail } from "./assert.js";
import { poll } from "./poll.js";

/** One request's own timeout, as upstream's 5 s client timeouts. */
const REQUEST_TIMEOUT_MS = 5000;

function target(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * `e2eservice.TestReachableHTTP`: polls `/echo?msg=hello` until the answer is 200 with "hello".
 */
export async function testReachableHTTP(
  client: TrafficClient,
  host: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  await poll(`http://${target(host, port)}/echo?msg=hello to answer "hello"`, { timeoutMs, signal }, async (note) => {
    const response = await client.httpGet(host, port, "/echo?msg=hello", { timeoutMs: Math.min(REQUEST_TIMEOUT_MS, timeoutMs) });
    if (response.status === 200 && response.body.trim() === "hello") return true;
    note(`status ${response.status}, body ${JSON.stringify(response.body.slice(0, 200))}`);
    return undefined;
  });
}

/**
 * `testNotReachableHTTP`: polls until a request gets no HTTP answer at all (refused, reset, timed
 * out). A load balancer in proxy mode may close the connection instead of refusing it; both count,
 * as cloud-provider-kind's fix to the upstream test settled.
 */
export async function testNotReachableHTTP(
  client: TrafficClient,
  host: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  await poll(`http://${target(host, port)} to stop answering`, { timeoutMs, signal }, async (note) => {
    try {
      const response = await client.httpGet(host, port, "/echo?msg=hello", { timeoutMs: Math.min(REQUEST_TIMEOUT_MS, timeoutMs) });
      note(`still answered with status ${response.status}`);
      return undefined;
    } catch {
      return true;
    }
  });
}

/** `testReachableUDP`: netexec answers "echo hello" with "hello". */
export async function testReachableUDP(
  client: TrafficClient,
  host: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  await poll(`udp://${target(host, port)} to echo "hello"`, { timeoutMs, signal }, async (note) => {
    const answer = await client.udpExchange(host, port, "echo hello", { timeoutMs: Math.min(REQUEST_TIMEOUT_MS / 5, timeoutMs) });
    if (answer.trim() === "hello") return true;
    note(`answered ${JSON.stringify(answer.slice(0, 200))}`);
    return undefined;
  });
}

/** `testNotReachableUDP`: polls until a datagram gets no answer (no ICMP reject is required). */
export async function testNotReachableUDP(
  client: TrafficClient,
  host: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  await poll(`udp://${target(host, port)} to stop answering`, { timeoutMs, signal }, async (note) => {
    try {
      const answer = await client.udpExchange(host, port, "echo hello", { timeoutMs: Math.min(REQUEST_TIMEOUT_MS / 5, timeoutMs) });
      note(`still answered ${JSON.stringify(answer.slice(0, 200))}`);
      return undefined;
    } catch {
      return true;
    }
  });
}

/** Upstream's `AffinityConfirmCount`: this many identical answers in a row show affinity holds. */
export const AFFINITY_CONFIRM_COUNT = 15;

/**
 * `checkAffinity`: asks `/hostname` repeatedly. With `shouldHold`, succeeds once the last 15
 * answers came from one backend; without, once two different backends answered. Fails with
 * upstream's wording when the deadline passes first.
 */
export async function checkAffinity(
  client: TrafficClient,
  host: string,
  port: number,
  shouldHold: boolean,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const seen: string[] = [];
  try {
    await poll(
      shouldHold ? `session affinity on ${target(host, port)}` : `traffic to ${target(host, port)} to reach more than one backend`,
      { timeoutMs, signal, intervalMs: 50 },
      async (note) => {
        const response = await client.httpGet(host, port, "/hostname", { timeoutMs: Math.min(REQUEST_TIMEOUT_MS, timeoutMs) });
        if (response.status !== 200) {
          note(`status ${response.status}`);
          return undefined;
        }
        seen.push(response.body.trim());
        const distinct = new Set(seen);
        if (!shouldHold) return distinct.size >= 2 ? true : undefined;
        const recent = seen.slice(-AFFINITY_CONFIRM_COUNT);
        if (recent.length === AFFINITY_CONFIRM_COUNT && new Set(recent).size === 1) return true;
        note(`answers so far: ${JSON.stringify(seen.slice(-AFFINITY_CONFIRM_COUNT))}`);
        return undefined;
      },
    );
  } catch (error) {
    if (shouldHold) fail(`Affinity should hold but didn't. (${(error as Error).message})`);
    fail(`Affinity shouldn't hold but did. (${(error as Error).message})`);
  }
}
