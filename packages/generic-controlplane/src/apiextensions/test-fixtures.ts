import type { TestPlane } from "../server/test-support.js";
import type { CustomResourceDefinition } from "./types.js";

/** A Namespaced `widgets.example.com` CRD: v1 (storage) with status, scale, printer columns and a selectable field. */
export function widgetCrd(
  overrides: { group?: string; plural?: string; kind?: string; scope?: string; shortNames?: string[]; categories?: string[] } = {},
): CustomResourceDefinition {
  const group = overrides.group ?? "example.com";
  const plural = overrides.plural ?? "widgets";
  const kind = overrides.kind ?? "Widget";
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: overrides.scope ?? "Namespaced",
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        shortNames: overrides.shortNames ?? ["wd"],
        categories: overrides.categories ?? [],
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  description: "The desired state of a widget.",
                  properties: {
                    color: { type: "string", description: "Color of the widget, e.g. blue." },
                    replicas: { type: "integer" },
                    ports: {
                      type: "array",
                      "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name"],
                      items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
                    },
                  },
                },
                status: {
                  type: "object",
                  properties: { replicas: { type: "integer" }, selector: { type: "string" }, phase: { type: "string" } },
                },
              },
            },
          },
          subresources: {
            status: {},
            scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" },
          },
          additionalPrinterColumns: [
            { name: "Color", type: "string", jsonPath: ".spec.color" },
            { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          selectableFields: [{ jsonPath: ".spec.color" }],
        },
      ],
    },
  };
}

/**
 * Polls `check` until it returns a value other than undefined, failing with `what` once
 * `timeoutMs` has passed: for state the server reaches on its own (conditions, discovery).
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Creates a CRD and waits until it is Established; returns it as it then stands. */
export async function establish(t: TestPlane, crd: CustomResourceDefinition, timeoutMs = 5000): Promise<CustomResourceDefinition> {
  const created = await t.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd });
  if (created.status !== 201) throw new Error(`creating ${crd.metadata?.name}: ${created.status} ${created.text}`);
  return eventually(
    `${crd.metadata?.name} to be Established`,
    async () => {
      const current = (await t.call("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata?.name}`))
        .json as CustomResourceDefinition;
      return current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? current : undefined;
    },
    timeoutMs,
  );
}

/** Reads newline-delimited watch events from a streaming response. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary watch events
export function watchReader(response: Response): { next: () => Promise<any>; cancel: () => Promise<void> } {
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const next = async (): Promise<unknown> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return JSON.parse(line);
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("watch ended");
      buffered += decoder.decode(value, { stream: true });
    }
  };
  return { next, cancel: () => reader.cancel() };
}
