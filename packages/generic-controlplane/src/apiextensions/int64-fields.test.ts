/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
// Custom resource integers as a kube-apiserver keeps them: k8s.io/apimachinery/pkg/util/json's
// TestEvaluateTypes (an integer that fits int64 decodes as int64 and encodes back exactly; one past
// int64 becomes a float64), and go-openapi's type validation as apiextensions-apiserver runs it
// (a float64 beyond ±2^53 is not an integer: `must be of type integer: "number"`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { establish, widgetCrd } from "./test-fixtures.js";

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
  const crd = widgetCrd({ group: "int64.example.com", plural: "counters", kind: "Counter" });
  const spec = crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!;
  spec.properties!["total"] = { type: "integer", format: "int64" };
  spec.properties!["free"] = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  spec["x-kubernetes-validations"] = [{ rule: "!has(self.total) || self.total != 9007199254740992", message: "total must not be 2^53" }];
  await establish(t, crd);
});
afterAll(async () => {
  await t.close();
});

const COUNTERS = "/apis/int64.example.com/v1/namespaces/default/counters";
const JSON_TYPE = { "Content-Type": "application/json" };
const counter = (name: string, spec: string): string =>
  `{"apiVersion":"int64.example.com/v1","kind":"Counter","metadata":{"name":"${name}"},"spec":${spec}}`;

describe("custom resource int64 fields stay exact", () => {
  it.each([
    ["above-2-53", "9007199254740993"],
    ["int64-max", "9223372036854775807"],
    ["int64-min", "-9223372036854775808"],
  ])("stores, returns and lists %s (%s) exactly", async (name, literal) => {
    const created = await t.call("POST", COUNTERS, {
      raw: counter(name, `{"total":${literal},"free":{"n":${literal}}}`),
      headers: JSON_TYPE,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.text).toContain(`"total":${literal}`);
    const read = await t.call("GET", `${COUNTERS}/${name}`);
    expect(read.text).toContain(`"total":${literal}`);
    expect(read.text).toContain(`"n":${literal}`);
    const listed = await t.call("GET", COUNTERS);
    expect(listed.text).toContain(`"total":${literal}`);
    const stored = (await t.plane.storage.get(`/registry/int64.example.com/counters/default/${name}`))!.value;
    expect(stored).toContain(`"total":${literal}`);
  });

  it("keeps the int64 exact through merge, JSON and apply patches, YAML answers and watch events", async () => {
    const created = await t.call("POST", COUNTERS, { raw: counter("patched", '{"total":1}'), headers: JSON_TYPE });
    expect(created.status, created.text).toBe(201);
    const watch = await fetch(
      `${t.plane.url}${COUNTERS}?watch=true&resourceVersion=${created.json.metadata.resourceVersion}&timeoutSeconds=2`,
    );
    const merged = await t.call("PATCH", `${COUNTERS}/patched`, {
      raw: '{"spec":{"total":9007199254740993}}',
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.text).toContain('"total":9007199254740993');
    expect(await watch.text()).toContain('"total":9007199254740993');
    const patched = await t.call("PATCH", `${COUNTERS}/patched`, {
      raw: '[{"op":"add","path":"/spec/free","value":{"n":-9223372036854775808}}]',
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.text).toContain('"n":-9223372036854775808');
    expect(patched.text).toContain('"total":9007199254740993');
    const applied = await t.call("PATCH", `${COUNTERS}/patched?fieldManager=m&force=true`, {
      raw: counter("patched", '{"total":9223372036854775807}'),
      headers: { "Content-Type": "application/apply-patch+yaml" },
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.text).toContain('"total":9223372036854775807');
    const yaml = await fetch(`${t.plane.url}${COUNTERS}/patched`, { headers: { Accept: "application/yaml" } });
    expect(await yaml.text()).toContain("total: 9223372036854775807");
  });

  it("reads integers exactly from block YAML too, as sigs.k8s.io/yaml converts YAML to JSON", async () => {
    const body = [
      "apiVersion: int64.example.com/v1",
      "kind: Counter",
      "metadata:",
      "  name: block-yaml",
      "spec:",
      "  total: 9007199254740993",
      "  free:",
      "    min: -9223372036854775808",
      "    past: 9223372036854775808",
      "    small: 7",
      "",
    ].join("\n");
    const created = await t.call("POST", COUNTERS, { raw: body, headers: { "Content-Type": "application/yaml" } });
    expect(created.status, created.text).toBe(201);
    const read = await t.call("GET", `${COUNTERS}/block-yaml`);
    expect(read.text).toContain('"total":9007199254740993');
    expect(read.text).toContain('"min":-9223372036854775808');
    // Beyond int64 the value is a float64, as in JSON.
    expect(read.json.spec.free.past).toBe(9223372036854775808);
    expect(read.text).toContain('"small":7');
  });

  it("CEL sees the exact int64: 2^53 is refused by the rule, 2^53+1 is not", async () => {
    const refused = await t.call("POST", COUNTERS, { raw: counter("cel-2-53", '{"total":9007199254740992}'), headers: JSON_TYPE });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toContain("total must not be 2^53");
  });

  it.each([
    ["past-int64", "9223372036854775808"],
    ["exponent", "1e20"],
  ])("refuses %s (%s), which Go decodes as a float64 beyond 2^53", async (name, literal) => {
    const r = await t.call("POST", COUNTERS, { raw: counter(name, `{"total":${literal}}`), headers: JSON_TYPE });
    expect(r.status, r.text).toBe(422);
    expect(r.json.details.causes).toContainEqual({
      reason: "FieldValueTypeInvalid",
      field: "spec.total",
      message: 'Invalid value: "number": spec.total in body must be of type integer: "number"',
    });
    expect((await t.call("GET", `${COUNTERS}/${name}`)).status).toBe(404);
  });
});
