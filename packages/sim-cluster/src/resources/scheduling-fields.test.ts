import { isControlPlaneError } from "@kubekit/generic-controlplane";
import { createResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { podsResource } from "./pods.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

async function createPod(spec: Record<string, unknown>): Promise<{ code: string; message: string } | undefined> {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  try {
    await createResourceStore(podsResource, storage).create("default", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "x" }], ...spec },
    });
    return undefined;
  } catch (error) {
    if (isControlPlaneError(error)) return { code: error.code, message: error.message };
    throw error;
  }
}

const required = (...terms: unknown[]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
});

// After pkg/apis/core/validation's TestValidateTolerations and TestValidateAffinity.
describe("pod scheduling fields", () => {
  const invalid: Array<{ name: string; spec: Record<string, unknown>; message: string }> = [
    {
      name: "an empty key without Exists",
      spec: { tolerations: [{ operator: "Equal", value: "bar" }] },
      message:
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    },
    {
      name: "tolerationSeconds without NoExecute",
      spec: { tolerations: [{ key: "foo", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 10 }] },
      message: "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    },
    {
      name: "a value with Exists",
      spec: { tolerations: [{ key: "foo", operator: "Exists", value: "bar" }] },
      message: "value must be empty when `operator` is 'Exists'",
    },
    {
      name: "an unknown operator",
      spec: { tolerations: [{ key: "foo", operator: "In", value: "bar" }] },
      message: 'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"',
    },
    {
      name: "an unknown effect",
      spec: { tolerations: [{ key: "foo", operator: "Exists", effect: "NoWay" }] },
      message: 'spec.tolerations[0].effect: Unsupported value: "NoWay": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    },
    {
      name: "a key that is no label name",
      spec: { tolerations: [{ key: "nospecialchars^=@", operator: "Exists" }] },
      message: 'spec.tolerations[0].key: Invalid value: "nospecialchars^=@"',
    },
    {
      name: "no node selector terms",
      spec: required(),
      message:
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
    },
    {
      name: "In without values",
      spec: required({ matchExpressions: [{ key: "zone", operator: "In" }] }),
      message:
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    },
    {
      name: "Exists with values",
      spec: required({ matchExpressions: [{ key: "zone", operator: "Exists", values: ["a"] }] }),
      message:
        "nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    },
    {
      name: "Gt with two values",
      spec: required({ matchExpressions: [{ key: "n", operator: "Gt", values: ["1", "2"] }] }),
      message: "values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
    },
    {
      name: "an unknown operator in a term",
      spec: required({ matchExpressions: [{ key: "n", operator: "Near", values: ["1"] }] }),
      message: 'matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
    },
    {
      name: "a field other than metadata.name",
      spec: required({ matchFields: [{ key: "metadata.uid", operator: "In", values: ["x"] }] }),
      message: 'matchFields[0].key: Invalid value: "metadata.uid": not a valid field selector key',
    },
    {
      name: "two node names",
      spec: required({ matchFields: [{ key: "metadata.name", operator: "In", values: ["a", "b"] }] }),
      message: "matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
    },
    {
      name: "a preferred weight out of range",
      spec: {
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 101, preference: { matchExpressions: [{ key: "a", operator: "Exists" }] } },
            ],
          },
        },
      },
      message:
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100",
    },
  ];
  for (const c of invalid) {
    it(`refuses ${c.name}`, async () => {
      const refused = await createPod(c.spec);
      expect(refused?.code).toBe("Invalid");
      expect(refused?.message).toContain(c.message);
    });
  }

  it("accepts the tolerations and affinity the scheduler and DaemonSets use", async () => {
    expect(
      await createPod({
        tolerations: [
          { operator: "Exists" },
          { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
          { key: "dedicated", value: "gpu", effect: "NoSchedule" },
        ],
        ...required(
          { matchFields: [{ key: "metadata.name", operator: "In", values: ["node-1"] }] },
          { matchExpressions: [{ key: "n", operator: "Gt", values: ["1"] }] },
        ),
      }),
    ).toBeUndefined();
  });
});
