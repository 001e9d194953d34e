import { expect } from "vitest";
import type { KubeObject } from "../../src/index.js";
import type { KubeHttp } from "./http.js";

/**
 * The small part of the upstream e2e framework the ported Conformance tests lean on: a fresh
 * namespace per test (`framework.NewDefaultFramework`), read-modify-write updates with conflict
 * retry (`updateConfigMap`), and asserting HTTP answers.
 */

export type Obj = KubeObject & {
  metadata: NonNullable<KubeObject["metadata"]> & { name: string; resourceVersion: string };
  data?: Record<string, string>;
  [field: string]: unknown;
};

let counter = 0;

/** Creates a uniquely named namespace, like the framework's `<base>-<random>`. */
export async function createTestNamespace(http: KubeHttp, base: string): Promise<string> {
  const name = `${base}-${process.pid % 1000}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;
  const answer = await http.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  expectStatus(answer, 201);
  return name;
}

/** Fails with the response body when the status differs. */
export function expectStatus(answer: { status: number; text: string }, status: number): void {
  expect(answer.status, answer.text).toBe(status);
}

/** GET, mutate, PUT; retried on 409 Conflict like client-go's `RetryOnConflict`. */
export async function updateObject(http: KubeHttp, path: string, mutate: (object: Obj) => void): Promise<Obj> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await http.get<Obj>(path);
    expectStatus(current, 200);
    mutate(current.body);
    const updated = await http.put<Obj>(path, current.body);
    if (updated.status === 409) continue;
    expectStatus(updated, 200);
    return updated.body;
  }
  throw new Error(`update of ${path} kept conflicting`);
}

export function configMapPath(namespace: string, name?: string): string {
  return `/api/v1/namespaces/${namespace}/configmaps${name === undefined ? "" : `/${name}`}`;
}
