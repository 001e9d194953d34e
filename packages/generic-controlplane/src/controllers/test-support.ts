import { Registry } from "prom-client";
import type { KubeObject } from "../api/types.js";
import type { LogRecord } from "../server/logger.js";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { KubeClient, type ResourceRef } from "./client.js";
import { createControllerContext, type Controller, type ControllerContext } from "./runtime.js";

export const CONFIGMAPS: ResourceRef = { group: "", version: "v1", resource: "configmaps", namespaced: true };
export const SECRETS: ResourceRef = { group: "", version: "v1", resource: "secrets", namespaced: true };
export const NAMESPACES_REF: ResourceRef = { group: "", version: "v1", resource: "namespaces", namespaced: false };

/** A control plane, a client on it and controllers running against it; for tests. */
export interface ControllerHarness {
  test: TestPlane;
  client: KubeClient;
  context: ControllerContext;
  registry: Registry;
  /** Every structured log record the controllers wrote. */
  logs: LogRecord[];
  close(): Promise<void>;
}

export async function startControllers(
  controllers: Controller[],
  options: { discoveryPeriodMs?: number } = {},
): Promise<ControllerHarness> {
  const test = await startTestPlane();
  const client = new KubeClient(test.url);
  const registry = new Registry();
  const logs: LogRecord[] = [];
  const context = createControllerContext(client, {
    registry,
    logger: (record) => logs.push(record),
    discoveryPeriodMs: options.discoveryPeriodMs ?? 200,
    informer: { initialBackoffMs: 50, maxBackoffMs: 500 },
  });
  const stop = new AbortController();
  const running = Promise.all(controllers.map((c) => c.run(context, stop.signal)));
  context.informers.start();
  return {
    test,
    client,
    context,
    registry,
    logs,
    async close() {
      stop.abort();
      await running;
      await context.informers.stop();
      client.close();
      await test.close();
    },
  };
}

/** Polls `probe` until it returns a value other than undefined; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error : new Error(JSON.stringify(error));
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last !== undefined ? `: ${last.message}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Whether GET of `ref/namespace/name` answers 404. */
export async function isGoneFrom(client: KubeClient, ref: ResourceRef, namespace: string | undefined, name: string): Promise<boolean> {
  try {
    await client.get(ref, namespace, name);
    return false;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return true;
    throw error;
  }
}

export function ownerRef(owner: KubeObject, extra: { blockOwnerDeletion?: boolean; controller?: boolean } = {}) {
  return {
    apiVersion: owner.apiVersion ?? "v1",
    kind: owner.kind ?? "",
    name: owner.metadata?.name ?? "",
    uid: owner.metadata?.uid ?? "",
    ...extra,
  };
}
