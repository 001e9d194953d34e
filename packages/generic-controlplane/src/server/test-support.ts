import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from "../control-plane.js";
import type { AdmissionPlugin } from "../admission/types.js";

/** A control plane on a free loopback port, plus a fetch helper; for tests. */
export interface TestPlane {
  plane: ControlPlane;
  url: string;
  call(
    method: string,
    path: string,
    init?: { body?: unknown; headers?: Record<string, string>; raw?: string | Uint8Array },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  json: any;
}

export async function startTestPlane(options: ControlPlaneOptions = {}): Promise<TestPlane> {
  const plane = await createControlPlane({ port: 0, host: "127.0.0.1", processMetrics: false, ...options });
  const url = plane.url;
  return { plane, url, call: callerFor(url), close: () => plane.close() };
}

/** `TestPlane.call` for any server at `url`: JSON bodies by default, the response read whole. */
export function callerFor(url: string): TestPlane["call"] {
  return async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | Uint8Array | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["Content-Type"] ??= "application/json";
    }
    const response = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };
}

export function configMap(name: string, data: Record<string, string> = { a: "1" }, labels?: Record<string, string>) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) }, data };
}

/**
 * An admission plugin that holds the write of the object named `name` until `release()`, keeping
 * that request in flight (and its seat taken) for as long as a test needs. `entered` resolves once
 * the request is inside admission.
 */
export function holdAdmission(name: string): { plugin: AdmissionPlugin; entered: Promise<void>; release(): void } {
  let enter = (): void => undefined;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const plugin: AdmissionPlugin = {
    name: "Hold",
    async validate(attributes) {
      if (attributes.name !== name) return;
      enter();
      await released;
    },
  };
  return { plugin, entered, release };
}
