import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { describe, expect, it } from "vitest";
import { useSimClusterPerTest } from "../../test/fixture.js";
import { eventually } from "../../test/kubectl.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";

const POLICIES: ResourceRef = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  resource: "validatingadmissionpolicies",
  namespaced: false,
};
const BINDINGS: ResourceRef = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  resource: "validatingadmissionpolicybindings",
  namespaced: false,
};

const sim = useSimClusterPerTest();

describe("kubelet resync", { timeout: 60_000 }, () => {
  it("a pod whose status writes were refused goes Running once they are allowed, without any change to the pod", async () => {
    await sim.start({ nodes: 1 });
    const c = sim.client;
    // The kubelet's status writes for this one pod are refused while the binding exists.
    await c.create(POLICIES, undefined, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "hold-status" },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/status"] }],
        },
        validations: [{ expression: "object.metadata.name != 'held'", message: "status of held is refused" }],
      },
    });
    await c.create(BINDINGS, undefined, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "hold-status" },
      spec: { policyName: "hold-status", validationActions: ["Deny"] },
    });
    await c.create(PODS, "default", { metadata: { name: "held" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    await c.create(PODS, "default", { metadata: { name: "free" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    // The other pod shows the kubelet at work: by then the held pod's first status write was refused.
    await eventually("free Running", async () =>
      (await c.get<Pod>(PODS, "default", "free")).status?.phase === "Running" ? true : undefined,
    );
    const held = await c.get<Pod>(PODS, "default", "held");
    expect(held.spec?.nodeName).toBeTruthy();
    expect(held.status?.phase).toBe("Pending");
    expect(held.status?.containerStatuses).toBeUndefined();

    await c.delete(BINDINGS, undefined, "hold-status");
    // Nothing about the pod changes from here on: only the kubelet's resync (every 10 s) can start it.
    const running = await eventually(
      "held Running",
      async () => {
        const pod = await c.get<Pod>(PODS, "default", "held");
        return pod.status?.phase === "Running" ? pod : undefined;
      },
      25_000,
    );
    expect(running.metadata?.resourceVersion).not.toBe(held.metadata?.resourceVersion);
    expect(running.status?.containerStatuses?.[0]).toMatchObject({ name: "c", ready: true, started: true });
  });
});
