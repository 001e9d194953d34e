import { describe, expect, it } from "vitest";
import type { PersistentVolume, PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import type { StorageClass } from "../resources/storage-classes.js";
import { volumeBindingReason } from "../scheduler/volume-binding.js";
import { defaultClass, findMatchingVolume, provisionedVolume } from "./volume-matching.js";

// After pkg/controller/volume/persistentvolume's index_test.go (TestMatchVolume) and the scheduler's volumebinding PreFilter.
const claim = (spec: PersistentVolumeClaim["spec"] = {}): PersistentVolumeClaim => ({
  metadata: { name: "data", namespace: "ns", uid: "claim-uid" },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, storageClassName: "", ...spec },
});
const pv = (
  name: string,
  storage: string,
  extra: Partial<NonNullable<PersistentVolume["spec"]>> = {},
  labels?: Record<string, string>,
): PersistentVolume => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { capacity: { storage }, accessModes: ["ReadWriteOnce", "ReadOnlyMany"], hostPath: { path: `/tmp/${name}` }, ...extra },
  status: { phase: "Available" },
});

describe("findMatchingVolume", () => {
  it("picks the smallest Available volume of the claim's class, modes and size", () => {
    const volumes = [
      pv("big", "10Gi"),
      pv("small", "2Gi"),
      pv("tiny", "500Mi"),
      pv("gold", "1Gi", { storageClassName: "gold" }),
      pv("rwx", "1Gi", { accessModes: ["ReadWriteMany"] }),
    ];
    expect(findMatchingVolume(claim(), volumes)?.metadata?.name).toBe("small");
    expect(findMatchingVolume(claim({ storageClassName: "gold" }), volumes)?.metadata?.name).toBe("gold");
    expect(findMatchingVolume(claim({ accessModes: ["ReadWriteMany"] }), volumes)?.metadata?.name).toBe("rwx");
    expect(findMatchingVolume(claim({ resources: { requests: { storage: "20Gi" } } }), volumes)).toBeUndefined();
  });

  it("honours the claim's selector, skips volumes promised to others, and prefers one pre-bound to the claim", () => {
    const volumes = [
      pv("a", "1Gi", {}, { tier: "fast" }),
      pv("b", "1Gi", { claimRef: { namespace: "ns", name: "other" } }),
      pv("c", "5Gi", { claimRef: { namespace: "ns", name: "data" } }),
    ];
    expect(findMatchingVolume(claim({ selector: { matchLabels: { tier: "fast" } } }), volumes)?.metadata?.name).toBe("a");
    expect(findMatchingVolume(claim(), volumes)?.metadata?.name).toBe("c");
    expect(findMatchingVolume(claim(), [pv("b", "1Gi", { claimRef: { namespace: "ns", name: "other" } })])).toBeUndefined();
  });
});

describe("provisioning", () => {
  const sc = (name: string, created: string, extra: Partial<StorageClass> = {}): StorageClass => ({
    metadata: { name, creationTimestamp: created, annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    provisioner: "example.com/p",
    ...extra,
  });

  it("takes the newest default class", () => {
    expect(
      defaultClass([
        sc("old", "2024-01-01T00:00:00Z"),
        sc("new", "2024-02-01T00:00:00Z"),
        { metadata: { name: "plain" }, provisioner: "x" },
      ])?.metadata?.name,
    ).toBe("new");
    expect(
      defaultClass([{ metadata: { name: "plain", annotations: { "storageclass.kubernetes.io/is-default-class": "false" } } }]),
    ).toBeUndefined();
  });

  it("makes pvc-<uid> with the claim's request and modes, the class's reclaim policy, promised to the claim", () => {
    const made = provisionedVolume(claim({ storageClassName: "fast" }), sc("fast", "2024-01-01T00:00:00Z", { reclaimPolicy: "Retain" }));
    expect(made.metadata).toEqual({ name: "pvc-claim-uid", annotations: { "pv.kubernetes.io/provisioned-by": "example.com/p" } });
    expect(made.spec).toMatchObject({
      capacity: { storage: "1Gi" },
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "fast",
      claimRef: { namespace: "ns", name: "data", uid: "claim-uid" },
    });
  });
});

describe("volumeBindingReason", () => {
  const pod = {
    metadata: { name: "p", namespace: "ns" },
    spec: { volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] },
  };
  const wffc: StorageClass = { metadata: { name: "local" }, provisioner: "example.com/p", volumeBindingMode: "WaitForFirstConsumer" };

  it("holds a pod whose claim is missing, terminating or unbound, unless it binds on first consumer", () => {
    expect(
      volumeBindingReason(
        pod,
        () => undefined,
        () => undefined,
      ),
    ).toBe('persistentvolumeclaim "data" not found');
    expect(
      volumeBindingReason(
        pod,
        () => ({ ...claim(), metadata: { ...claim().metadata, deletionTimestamp: "2024-01-01T00:00:00Z" } }),
        () => undefined,
      ),
    ).toBe('persistentvolumeclaim "data" is being deleted');
    expect(
      volumeBindingReason(
        pod,
        () => claim(),
        () => undefined,
      ),
    ).toBe("pod has unbound immediate PersistentVolumeClaims");
    expect(
      volumeBindingReason(
        pod,
        () => claim({ storageClassName: "local" }),
        () => wffc,
      ),
    ).toBeUndefined();
    expect(
      volumeBindingReason(
        pod,
        () => ({ ...claim({ volumeName: "pv" }), status: { phase: "Bound" } }),
        () => undefined,
      ),
    ).toBeUndefined();
    expect(
      volumeBindingReason(
        { metadata: { name: "p", namespace: "ns" }, spec: {} },
        () => undefined,
        () => undefined,
      ),
    ).toBeUndefined();
  });
});
