/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { establish, widgetCrd } from "../src/apiextensions/test-fixtures.js";
import type { CustomResourceDefinition } from "../src/apiextensions/types.js";
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";
import { startEtcdStorage } from "./harness/etcd.js";

/**
 * Regular expressions in CRD validation rules run on RE2, as Kubernetes' do (Go's `regexp`): a
 * pattern that makes a backtracking engine take exponential time costs one linear pass over the
 * value, so one client cannot stall the server for the others, and patterns RE2 refuses
 * (backreferences) are refused when the CRD is written, with Go's compile error.
 */

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane({ storage: await startEtcdStorage() });
}, 30_000);
afterAll(async () => {
  await t?.close();
});

function crdWithRule(plural: string, kind: string, rule: string): CustomResourceDefinition {
  const crd = widgetCrd({ group: "regex.example.com", plural, kind });
  const spec = crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!;
  spec.properties!["color"] = {
    type: "string",
    maxLength: 1024,
    "x-kubernetes-validations": [{ rule, message: "no run of a at the end" }],
  };
  return crd;
}

/** Resolves to how long `request` took, in milliseconds, and its answer. */
async function timed<T>(request: Promise<T>): Promise<{ ms: number; answer: T }> {
  const start = performance.now();
  const answer = await request;
  return { ms: performance.now() - start, answer };
}

describe("regular expressions in CRD validation rules", () => {
  it("match in linear time: a create with the catastrophic pattern answers promptly and does not hold up another client", async () => {
    await establish(t, crdWithRule("gauges", "Gauge", "self.find('(a+)+$') == ''"));
    const gauges = "/apis/regex.example.com/v1/namespaces/default/gauges";

    // A backtracking engine takes about 2^n steps on n a's and a mismatch: 20 s at 29, centuries at 64.
    const value = `${"a".repeat(64)}!`;
    const [create, version] = await Promise.all([
      timed(
        t.call("POST", gauges, {
          body: { apiVersion: "regex.example.com/v1", kind: "Gauge", metadata: { name: "long" }, spec: { color: value } },
        }),
      ),
      timed(t.call("GET", "/version")),
    ]);
    expect(create.answer.status, create.answer.text).toBe(201);
    expect(version.answer.status).toBe(200);
    // Generous bounds: the point is seconds against centuries.
    expect(create.ms).toBeLessThan(10_000);
    expect(version.ms).toBeLessThan(10_000);

    // The rule does run: a value that ends in a's is refused.
    const refused = await t.call("POST", gauges, {
      body: { apiVersion: "regex.example.com/v1", kind: "Gauge", metadata: { name: "short" }, spec: { color: "baaa" } },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toBe(
      'Gauge.regex.example.com "short" is invalid: spec.color: Invalid value: "string": no run of a at the end',
    );
  }, 60_000);

  it("refuse a backreference in find() when the CRD is created, with Go's compile error", async () => {
    const response = await t.call("POST", CRDS, { body: crdWithRule("pulleys", "Pulley", "self.find('(a)\\\\1') == ''") });
    expect(response.status).toBe(422);
    expect(response.json.reason).toBe("Invalid");
    expect(response.json.details.causes).toContainEqual({
      reason: "FieldValueInvalid",
      field: "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].x-kubernetes-validations[0].rule",
      message: expect.stringContaining("program instantiation failed: error parsing regexp: invalid escape sequence: `\\1`") as unknown,
    });
  });
});
