import type { ApiServer, ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { APPS_V1 } from "./apps-v1.js";
import { AUTOSCALING_V1 } from "./autoscaling-v1.js";
import { AUTOSCALING_V2 } from "./autoscaling-v2.js";
import { BATCH_V1 } from "./batch-v1.js";
import { CORE_V1 } from "./core-v1.js";
import { DISCOVERY_V1 } from "./discovery-v1.js";
import { META_V1 } from "./meta-v1.js";
import { NETWORKING_V1 } from "./networking-v1.js";
import { NODE_V1 } from "./node-v1.js";
import { POLICY_V1 } from "./policy-v1.js";
import { SCHEDULING_V1 } from "./scheduling-v1.js";
import { STORAGE_V1 } from "./storage-v1.js";

/** One registration per API group; their messages refer to each other's (a StatefulSet's pod template, a RuntimeClass's quantities). */
const GROUPS: readonly ProtobufKinds[] = [
  META_V1,
  CORE_V1,
  APPS_V1,
  BATCH_V1,
  POLICY_V1,
  NETWORKING_V1,
  NODE_V1,
  STORAGE_V1,
  AUTOSCALING_V1,
  AUTOSCALING_V2,
  DISCOVERY_V1,
  SCHEDULING_V1,
];

/**
 * Makes the control plane's protobuf codec read and write every kind the cluster serves beyond
 * the control plane's own, as client-go's typed clients (kubectl 1.32's `create deployment`, `create
 * job`, `autoscale`, ...) send them, on the cluster's own server.
 */
export function registerWorkloadProtobuf(server: Pick<ApiServer, "registerProtobufKinds">): void {
  server.registerProtobufKinds({
    sources: GROUPS.flatMap((group) => group.sources),
    kinds: Object.assign({}, ...GROUPS.map((group) => group.kinds)) as Record<string, string>,
    keepZeroFields: GROUPS.flatMap((group) => group.keepZeroFields ?? []),
    alwaysPresentFields: GROUPS.flatMap((group) => group.alwaysPresentFields ?? []),
    inlineFields: GROUPS.flatMap((group) => group.inlineFields ?? []),
  });
}
