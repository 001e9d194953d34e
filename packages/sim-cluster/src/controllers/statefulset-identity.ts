import type { KubeObject, OwnerReference } from "@kubekit/generic-controlplane";
import type { PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import type { PodTemplateSpec } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";
import type { StatefulSet } from "../resources/statefulsets.js";
import { CONTROLLER_REVISION_HASH } from "./daemonset-pods.js";
import { ownerReferenceTo } from "./util.js";

/** The labels that give a StatefulSet's pod its identity (the second is PodIndexLabel, on in 1.32). */
export const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

export function startOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

/** `getPodName`: `<set>-<ordinal>`. */
export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ""}-${ordinal}`;
}

/** `getParentNameAndOrdinal`: the ordinal of a pod named `<set>-<n>`, else undefined (not one of the set's). */
export function ordinalOf(set: StatefulSet, pod: Pod): number | undefined {
  const name = pod.metadata?.name ?? "";
  const prefix = `${set.metadata?.name ?? ""}-`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]*)$/.test(rest) && Number(rest) <= 2 ** 31 - 1 ? Number(rest) : undefined;
}

/** `getPersistentVolumeClaimName`: `<template>-<set>-<ordinal>`. */
export function claimName(set: StatefulSet, template: string, ordinal: number): string {
  return `${template}-${podName(set, ordinal)}`;
}

/** The revision a pod was made from (`getPodRevision`): the revision's name in its `controller-revision-hash` label. */
export function podRevision(pod: Pod): string | undefined {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH];
}

/**
 * `getPersistentVolumeClaims`: the claims of the pod at `ordinal`, one per template, labelled with
 * the template's labels and the set's selector labels.
 */
export function claimsFor(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  return (set.spec?.volumeClaimTemplates ?? []).map((template) => {
    const labels = { ...(template.metadata?.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) };
    return {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name: claimName(set, template.metadata?.name ?? "", ordinal),
        namespace: set.metadata?.namespace ?? "",
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      },
      spec: structuredClone(template.spec ?? {}),
    };
  });
}

/** `updateStorage`: a claim volume per claim template, in place of any volume of the same name; the pod's other volumes after. */
export function claimVolumes(
  set: StatefulSet,
  volumes: ReadonlyArray<{ name?: string }> | undefined,
  ordinal: number,
): Array<{ name?: string }> {
  const claimTemplates = set.spec?.volumeClaimTemplates ?? [];
  const claims = claimTemplates.map((t) => ({
    name: t.metadata?.name ?? "",
    persistentVolumeClaim: { claimName: claimName(set, t.metadata?.name ?? "", ordinal) },
  }));
  const names = new Set(claims.map((v) => v.name));
  return [...claims, ...(volumes ?? []).filter((v) => !names.has(v.name ?? ""))];
}

/** `updateIdentity`'s labels: the pod's name and ordinal (PodIndexLabel is on in 1.32). */
export function identityLabels(set: StatefulSet, ordinal: number): Record<string, string> {
  return { [POD_NAME_LABEL]: podName(set, ordinal), [POD_INDEX_LABEL]: String(ordinal) };
}

/** `identityMatches`: the pod is `<set>-<n>` in the set's namespace and its pod-name label says so. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(set, pod);
  return (
    ordinal !== undefined &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** `storageMatches`: each claim template has a volume of its name that mounts the pod's claim. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(set, pod);
  if (ordinal === undefined) return false;
  const volumes = (pod.spec?.["volumes"] as Array<{ name?: string; persistentVolumeClaim?: { claimName?: string } }> | undefined) ?? [];
  return (set.spec?.volumeClaimTemplates ?? []).every((template) => {
    const volume = volumes.find((v) => v.name === (template.metadata?.name ?? ""));
    return volume?.persistentVolumeClaim?.claimName === claimName(set, template.metadata?.name ?? "", ordinal);
  });
}

/**
 * `newVersionedStatefulSetPod`: the pod at `ordinal` from `template` (the set's, or an older
 * revision's below the partition): its name, the identity labels, hostname `<set>-<n>` and
 * subdomain `serviceName` (`initIdentity`; both immutable, so set only here), and a claim volume
 * for each claim template (`updateStorage`).
 */
export function newStatefulSetPod(set: StatefulSet, template: PodTemplateSpec, ordinal: number, revision: string): Pod {
  const name = podName(set, ordinal);
  const spec = structuredClone(template.spec ?? {});
  spec["hostname"] = name;
  if (set.spec?.serviceName) spec["subdomain"] = set.spec.serviceName;
  if ((set.spec?.volumeClaimTemplates ?? []).length > 0)
    spec["volumes"] = claimVolumes(set, spec["volumes"] as Array<{ name?: string }> | undefined, ordinal);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: set.metadata?.namespace ?? "",
      labels: { ...(template.metadata?.labels ?? {}), ...identityLabels(set, ordinal), [CONTROLLER_REVISION_HASH]: revision },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ...(template.metadata?.finalizers ? { finalizers: [...template.metadata.finalizers] } : {}),
      ownerReferences: [ownerReferenceTo(set, "apps/v1", "StatefulSet")],
    },
    spec,
  };
}

function plainReference(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "" };
}

/**
 * `updateClaimOwnerRefForSetAndPod`: the owner references a claim of `pod` should carry under the
 * set's persistentVolumeClaimRetentionPolicy: the set's when `whenDeleted: Delete` (the garbage
 * collector removes the claim with the set), the pod's when `whenScaled: Delete` and the pod is
 * beyond the replicas (the claim goes with the pod). Other owners' references are kept.
 */
export function claimOwnerReferences(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod, ordinal: number): OwnerReference[] {
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy ?? {};
  const start = startOrdinal(set);
  const scaledDown = ordinal < start || ordinal >= start + (set.spec?.replicas ?? 1);
  const setUid = set.metadata?.uid;
  const podUid = pod.metadata?.uid;
  const others = (claim.metadata?.ownerReferences ?? []).filter((r) => r.uid !== setUid && r.uid !== podUid);
  const existing = (uid: string | undefined) => claim.metadata?.ownerReferences?.find((r) => r.uid === uid);
  const refs = [...others];
  const bySet = policy.whenDeleted === "Delete" && !(policy.whenScaled === "Delete" && scaledDown);
  const byPod = policy.whenScaled === "Delete" && scaledDown;
  if (bySet) refs.push(existing(setUid) ?? plainReference(set, "apps/v1", "StatefulSet"));
  if (byPod) refs.push(existing(podUid) ?? plainReference(pod, "v1", "Pod"));
  return refs;
}
