/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceDefinition } from "../src/registry/rest/resource-definition.js";
import { selectBuiltinResources } from "../src/control-plane/builtin-resources.js";
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";

// Ports of test/e2e/scheduling/limit_range.go ("LimitRange should create a LimitRange with defaults
// and ensure pod has those defaults applied") against a consumer-served core/v1 Pod, the way a
// cluster built on the generic control plane (sim-cluster) serves them.

const pods: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  singular: "pod",
  scope: "Namespaced",
  schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { metadata: { type: "object" } } },
};

const resources = (cpu: string, memory: string, storage: string): Record<string, string> =>
  Object.fromEntries(Object.entries({ cpu, memory, "ephemeral-storage": storage }).filter(([, value]) => value !== ""));

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane({ resources: [...selectBuiltinResources(), pods] });
});
afterAll(async () => {
  await t.close();
});

const podPath = "/api/v1/namespaces/default/pods";
const createPod = (name: string, requirements: { requests?: Record<string, string>; limits?: Record<string, string> } = {}) =>
  t.call("POST", podPath, {
    body: { metadata: { name }, spec: { containers: [{ name: "pause", image: "pause", resources: requirements }] } },
  });

describe("[sig-scheduling] LimitRange", () => {
  it("should create a LimitRange with defaults and ensure pod has those defaults applied", async () => {
    const limitRange = {
      metadata: { name: "limit-range" },
      spec: {
        limits: [
          {
            type: "Container",
            min: resources("50m", "100Mi", "100Gi"),
            max: resources("500m", "500Mi", "500Gi"),
            default: resources("500m", "500Mi", "500Gi"),
            defaultRequest: resources("100m", "200Mi", "200Gi"),
          },
        ],
      },
    };
    const created = await t.call("POST", "/api/v1/namespaces/default/limitranges", { body: limitRange });
    expect(created.status).toBe(201);
    expect(created.json.spec.limits[0].defaultRequest).toEqual(resources("100m", "200Mi", "200Gi"));

    // A pod with no resource requirements gets the defaults.
    const bare = await createPod("pod-no-resources");
    expect(bare.status).toBe(201);
    expect(bare.json.spec.containers[0].resources).toEqual({
      requests: resources("100m", "200Mi", "200Gi"),
      limits: resources("500m", "500Mi", "500Gi"),
    });
    expect(bare.json.metadata.annotations["kubernetes.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: cpu, ephemeral-storage, memory request for container pause; cpu, ephemeral-storage, memory limit for container pause",
    );

    // Partial requirements keep what was given and get the rest.
    const partial = await createPod("pod-partial-resources", {
      requests: resources("300m", "150Mi", "150Gi"),
      limits: resources("300m", "", ""),
    });
    expect(partial.status).toBe(201);
    expect(partial.json.spec.containers[0].resources).toEqual({
      requests: resources("300m", "150Mi", "150Gi"),
      limits: resources("300m", "500Mi", "500Gi"),
    });

    // Below the minimum and above the maximum are refused.
    const small = await createPod("pod-too-small", { requests: resources("10m", "50Mi", "50Gi") });
    expect(small.status).toBe(403);
    expect(small.json.message).toBe(
      'pods "pod-too-small" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, minimum memory usage per Container is 100Mi, but request is 50Mi, minimum ephemeral-storage usage per Container is 100Gi, but request is 50Gi]',
    );
    const large = await createPod("pod-too-large", { requests: resources("600m", "600Mi", "600Gi") });
    expect(large.status).toBe(403);
    // The default limit (500m) fills the missing one, so it is the request that goes over.
    expect(large.json.message).toContain("maximum cpu usage per Container is 500m, but request is 600m");

    // After lowering the minimum the small pod fits.
    const current = await t.call("GET", "/api/v1/namespaces/default/limitranges/limit-range");
    current.json.spec.limits[0].min = resources("1m", "1Mi", "1Gi");
    expect((await t.call("PUT", "/api/v1/namespaces/default/limitranges/limit-range", { body: current.json })).status).toBe(200);
    const admitted = await eventuallyCreated("pod-now-fits", { requests: resources("10m", "50Mi", "50Gi") });
    expect(admitted.json.spec.containers[0].resources.limits).toEqual(resources("500m", "500Mi", "500Gi"));
    expect((await t.call("DELETE", "/api/v1/namespaces/default/limitranges/limit-range")).status).toBe(200);
  });

  it("enforces Pod-wide bounds and the limit to request ratio", async () => {
    await t.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "ratio" } } });
    const created = await t.call("POST", "/api/v1/namespaces/ratio/limitranges", {
      body: {
        metadata: { name: "lr" },
        spec: {
          limits: [
            { type: "Pod", max: { cpu: "1" } },
            { type: "Container", maxLimitRequestRatio: { cpu: "2" } },
          ],
        },
      },
    });
    expect(created.status).toBe(201);
    const post = (name: string, containers: unknown[]) =>
      t.call("POST", "/api/v1/namespaces/ratio/pods", { body: { metadata: { name }, spec: { containers } } });
    const ratio = await eventuallyRefused(() =>
      post("ratio", [{ name: "a", resources: { requests: { cpu: "100m" }, limits: { cpu: "300m" } } }]),
    );
    expect(ratio.json.message).toBe(
      'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000',
    );
    const unlimited = await post("unlimited", [{ name: "a", resources: { requests: { cpu: "100m" } } }]);
    expect(unlimited.json.message).toBe(
      'pods "unlimited" is forbidden: [maximum cpu usage per Pod is 1.  No limit is specified, cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0]',
    );
    const tooMuch = await post("pod-sum", [
      { name: "a", resources: { requests: { cpu: "400m" }, limits: { cpu: "600m" } } },
      { name: "b", resources: { requests: { cpu: "400m" }, limits: { cpu: "600m" } } },
    ]);
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.json.message).toBe('pods "pod-sum" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m');
    expect((await post("fits", [{ name: "a", resources: { requests: { cpu: "300m" }, limits: { cpu: "500m" } } }])).status).toBe(201);
  });

  it("rejects invalid LimitRanges naming the field and the rule", async () => {
    const bad = await t.call("POST", "/api/v1/namespaces/default/limitranges", {
      body: {
        metadata: { name: "bad" },
        spec: {
          limits: [
            { type: "Container", min: { cpu: "2" }, max: { cpu: "1" }, maxLimitRequestRatio: { memory: "0.5" } },
            { type: "Pod", default: { cpu: "1" } },
          ],
        },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      'LimitRange "bad" is invalid: [spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1, ' +
        // Defaulting (default from max, default request from default) runs before validation, as upstream.
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1, ' +
        'spec.limits[0].default[cpu]: Invalid value: "1": min value 2 is greater than default value 1, ' +
        'spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "0.5": ratio 0.5 is less than 1, ' +
        'spec.limits[1].default: Invalid value: {"cpu":"1"}: may not be specified when `type` is \'Pod\']',
    );
  });
});

/** The LimitRanger reads a watch-fed cache: a change is seen a moment after it was written. */
async function eventuallyCreated(name: string, requirements: { requests?: Record<string, string> }) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await createPod(name, requirements);
    if (answer.status === 201 || Date.now() > deadline) {
      expect(answer.status, answer.text).toBe(201);
      return answer;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function eventuallyRefused(send: () => ReturnType<TestPlane["call"]>) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await send();
    if (answer.status !== 201 || Date.now() > deadline) {
      expect(answer.status, answer.text).toBe(403);
      return answer;
    }
    await t.call("DELETE", `/api/v1/namespaces/ratio/pods/${answer.json.metadata.name}`);
  }
}
