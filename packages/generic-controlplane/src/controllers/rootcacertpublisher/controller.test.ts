import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/types.js";
import { CONFIGMAPS, NAMESPACES_REF, eventually, isGoneFrom, startControllers, type ControllerHarness } from "../test-support.js";
import { namespaceController } from "../namespace/controller.js";
import { ROOT_CA_CONFIG_MAP, rootCACertPublisher } from "./controller.js";

const CA = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";

let h: ControllerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type ConfigMap = { metadata?: { uid?: string; annotations?: Record<string, string> }; data?: Record<string, string> };

async function rootCAConfigMap(namespace: string, accept: (cm: ConfigMap) => boolean = () => true): Promise<ConfigMap> {
  return eventually(`${ROOT_CA_CONFIG_MAP} in ${namespace}`, async () => {
    try {
      const cm = await h!.client.get<ConfigMap & KubeObject>(CONFIGMAPS, namespace, ROOT_CA_CONFIG_MAP);
      return accept(cm) ? cm : undefined;
    } catch {
      return undefined;
    }
  });
}

describe("root-ca-cert-publisher", () => {
  it("publishes the CA in every namespace, and puts it back when deleted or edited", async () => {
    h = await startControllers([rootCACertPublisher({ rootCA: CA })]);
    const { client } = h;
    for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"])
      expect((await rootCAConfigMap(ns)).data).toEqual({ "ca.crt": CA });
    await client.create(NAMESPACES_REF, undefined, { metadata: { name: "team-a" } });
    const first = await rootCAConfigMap("team-a");
    expect(first.metadata?.annotations?.["kubernetes.io/description"]).toMatch(/^Contains a CA bundle/);

    await client.delete(CONFIGMAPS, "team-a", ROOT_CA_CONFIG_MAP);
    const second = await rootCAConfigMap("team-a", (cm) => cm.metadata?.uid !== first.metadata?.uid);

    await client.update(CONFIGMAPS, "team-a", {
      ...second,
      data: { "ca.crt": "", extra: "x" },
      metadata: { ...second.metadata, annotations: {} },
    });
    const reconciled = await rootCAConfigMap("team-a", (cm) => cm.data?.["ca.crt"] === CA);
    expect(reconciled.data).toEqual({ "ca.crt": CA });
    expect(reconciled.metadata?.annotations?.["kubernetes.io/description"]).toMatch(/^Contains a CA bundle/);
  });

  it("leaves a namespace being deleted alone, without retrying", async () => {
    h = await startControllers([rootCACertPublisher({ rootCA: CA }), namespaceController({ deletionGracePeriodMs: 0 })]);
    const { client } = h;
    await client.create(NAMESPACES_REF, undefined, { metadata: { name: "leaving" } });
    await rootCAConfigMap("leaving");
    await client.delete(NAMESPACES_REF, undefined, "leaving");
    await eventually("the namespace to go", async () =>
      (await isGoneFrom(client, NAMESPACES_REF, undefined, "leaving")) ? true : undefined,
    );
    expect(await h.registry.metrics()).toContain('workqueue_retries_total{name="root_ca_cert_publisher"} 0');
  });
});
