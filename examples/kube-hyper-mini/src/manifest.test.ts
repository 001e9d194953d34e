import { describe, expect, it } from "vitest";
import { manifestObjects, readManifest } from "./manifest.js";

describe("the manifest kube-hyper-mini applies", () => {
  it("holds the Widget CRD, the size policy and its binding, and the webhook configuration pointed at the running webhook", () => {
    const objects = manifestObjects(readManifest(), { url: "https://127.0.0.1:1234/validate-widgets", caBundle: "Q0E=" });
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      "CustomResourceDefinition/widgets.hyper.example.com",
      "ValidatingAdmissionPolicy/widget-size-limit",
      "ValidatingAdmissionPolicyBinding/widget-size-limit",
      "ValidatingWebhookConfiguration/widget-palette",
    ]);
    const webhooks = (objects[3] as unknown as { webhooks: Array<{ name: string; clientConfig: unknown }> }).webhooks;
    expect(webhooks).toMatchObject([
      { name: "palette.hyper.example.com", clientConfig: { url: "https://127.0.0.1:1234/validate-widgets", caBundle: "Q0E=" } },
    ]);
  });

  it("refuses a broken document, naming the file", () => {
    expect(() => manifestObjects("a: [", { url: "https://x", caBundle: "" })).toThrow(/hyper-mini\.yaml: /);
  });
});
