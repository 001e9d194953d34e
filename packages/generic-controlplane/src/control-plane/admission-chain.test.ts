import { afterEach, describe, expect, it } from "vitest";
import type { AdmissionPlugin } from "../admission/types.js";
import { createControlPlane, type ControlPlane } from "../control-plane.js";
import { ADMISSION_ORDER, CONFIGURED_PLUGINS, orderedAdmission } from "./admission-chain.js";

/** kube-apiserver's AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go), the plugins this package implements. */
const UPSTREAM_ORDER = [
  "NamespaceLifecycle",
  "LimitRanger",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
];

const planes: ControlPlane[] = [];
afterEach(async () => {
  for (const plane of planes.splice(0)) await plane.close();
});

describe("the admission chain", () => {
  it("keeps upstream's order for the plugins upstream has, ResourceQuota last", () => {
    expect(ADMISSION_ORDER.filter((name) => UPSTREAM_ORDER.includes(name))).toEqual(UPSTREAM_ORDER);
    expect(ADMISSION_ORDER.at(-1)).toBe("ResourceQuota");
  });

  it("is the declared order on a control plane serving every built-in, configured plugins in their place", async () => {
    const configured: AdmissionPlugin[] = [{ name: "First" }, { name: "Second" }];
    const plane = await createControlPlane({ admission: configured, processMetrics: false });
    planes.push(plane);
    const expected = ADMISSION_ORDER.flatMap((name) => (name === CONFIGURED_PLUGINS ? ["First", "Second"] : [name]));
    expect(plane.admission.map((plugin) => plugin.name)).toEqual(expected);
  }, 30_000);

  it("leaves out the plugins that are off and keeps the others in order", () => {
    const plugin = (name: string): AdmissionPlugin => ({ name });
    const chain = orderedAdmission(
      { ResourceQuota: plugin("ResourceQuota"), NamespaceLifecycle: plugin("NamespaceLifecycle"), LimitRanger: undefined },
      [plugin("Mine")],
    );
    expect(chain.map((p) => p.name)).toEqual(["NamespaceLifecycle", "Mine", "ResourceQuota"]);
  });
});
