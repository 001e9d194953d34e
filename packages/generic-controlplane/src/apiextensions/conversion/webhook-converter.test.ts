import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/types.js";
import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
import type { CustomResourceDefinition } from "../types.js";
import {
  convertEach,
  startTestConversionWebhook,
  type ReceivedReview,
  type ReviewHandler,
  type TestConversionWebhook,
} from "./test-conversion-webhook.js";
import { webhookConverter } from "./webhook-converter.js";

/**
 * The Webhook converter against a real HTTPS webhook answering each path its own way: the review
 * it sends, and upstream's checks of the answer with upstream's messages.
 */

let webhook: TestConversionWebhook;
let answer: ReviewHandler = convertEach((object) => object);
beforeAll(async () => {
  webhook = await startTestConversionWebhook({ "/convert": (review) => answer(review) });
});
afterAll(async () => {
  await webhook.close();
});

function crd(reviewVersions = ["v1", "v1beta1"]): CustomResourceDefinition {
  return {
    metadata: { name: "foos.example.com" },
    spec: {
      group: "example.com",
      conversion: {
        strategy: "Webhook",
        webhook: { clientConfig: { url: `${webhook.url}/convert`, caBundle: webhook.caBundle }, conversionReviewVersions: reviewVersions },
      },
    },
  };
}

const foo = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Foo",
  metadata: { name, namespace: "ns", uid: `uid-${name}`, resourceVersion: "7", labels: { a: "1" } },
  ...extra,
});

/** A v1 answer built from the request, changed by `edit`. */
function answering(edit: (review: ReceivedReview, response: Record<string, unknown>) => void): ReviewHandler {
  return (review) => {
    const converted = review.request.objects.map((o) => ({ ...o, apiVersion: review.request.desiredAPIVersion }));
    const response: Record<string, unknown> = { uid: review.request.uid, convertedObjects: converted, result: { status: "Success" } };
    const body = { apiVersion: review.apiVersion, kind: "ConversionReview", response };
    edit(review, response);
    return body;
  };
}

async function failure(
  objects: KubeObject[],
  handler: ReviewHandler,
  reviewVersions?: string[],
): Promise<{ message: string; status: unknown }> {
  answer = handler;
  try {
    await webhookConverter(crd(reviewVersions)).convert(objects, "example.com/v2");
  } catch (error) {
    if (!isControlPlaneError(error)) throw error;
    return { message: error.message, status: error.toStatus() };
  }
  throw new Error("the conversion succeeded");
}

describe("webhookConverter", () => {
  it("sends one ConversionReview v1 with every object, a fresh uid and the desired apiVersion", async () => {
    answer = convertEach((object) => object);
    const before = webhook.reviews.length;
    const out = await webhookConverter(crd()).convert([foo("a"), foo("b")], "example.com/v2");
    expect(out.map((o) => [o.apiVersion, o.metadata?.name])).toEqual([
      ["example.com/v2", "a"],
      ["example.com/v2", "b"],
    ]);
    const sent = webhook.reviews.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      apiVersion: "apiextensions.k8s.io/v1",
      timeout: "30s",
      request: { desiredAPIVersion: "example.com/v2", objects: [foo("a"), foo("b")] },
    });
    await webhookConverter(crd()).convert([foo("c")], "example.com/v2");
    expect(webhook.reviews.at(-1)!.request.uid).not.toBe(sent[0]!.request.uid);
  });

  it("speaks v1beta1 when it comes first, and then checks neither the answer's kind nor its uid", async () => {
    answer = answering((_review, response) => (response.uid = "whatever"));
    const [out] = await webhookConverter(crd(["v1beta1", "v1"])).convert([foo("a")], "example.com/v2");
    expect(out?.apiVersion).toBe("example.com/v2");
    expect(webhook.reviews.at(-1)!.apiVersion).toBe("apiextensions.k8s.io/v1beta1");
  });

  it("converts an object with nothing but apiVersion and kind without a call", async () => {
    const before = webhook.reviews.length;
    const out = await webhookConverter(crd()).convert([{ apiVersion: "example.com/v1", kind: "Foo" }], "example.com/v2");
    expect(out).toEqual([{ apiVersion: "example.com/v2", kind: "Foo" }]);
    expect(webhook.reviews.length).toBe(before);
  });

  it("answers every refused response with a 500 naming the webhook's subject, as upstream words it", async () => {
    const prefix = "conversion webhook for example.com/v1, Kind=Foo";
    const cases: Array<[ReviewHandler, string]> = [
      [
        (review) => ({ apiVersion: "apiextensions.k8s.io/v1beta1", kind: "ConversionReview", response: { uid: review.request.uid } }),
        `${prefix} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`,
      ],
      [() => ({ apiVersion: "apiextensions.k8s.io/v1", kind: "ConversionReview" }), `${prefix} failed: no response provided`],
      [answering((_r, response) => (response.uid = "other")), `${prefix} failed: expected response.uid="${"$UID"}", got "other"`],
      [
        answering((_r, response) => (response.result = { status: "Failure", message: "custom webhook conversion error" })),
        `${prefix} failed: custom webhook conversion error`,
      ],
      [
        answering((_r, response) => (response.result = { status: "Failed" })),
        `${prefix} failed: response.result.status was 'Failed', not 'Success'`,
      ],
      [answering((_r, response) => (response.convertedObjects = [])), `${prefix} returned 0 objects, expected 1`],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.apiVersion = "example.com/v3")),
        `${prefix} returned invalid object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v3)`,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.kind = "Bar")),
        `${prefix} returned invalid object at index 0: invalid kind (expected Foo, received Bar)`,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.metadata!.name = "b")),
        `${prefix} returned invalid object: must have the same name: a != b`,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.metadata!.namespace = "other")),
        `${prefix} returned invalid object: must have the same namespace: ns != other`,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.metadata!.uid = "x")),
        `${prefix} returned invalid object: must have the same UID: uid-a != x`,
      ],
      // The identity checks come first, so missing metadata shows as a changed name.
      [
        answering((_r, response) => delete (response.convertedObjects as KubeObject[])[0]!.metadata),
        `${prefix} returned invalid object: must have the same name: a != `,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.metadata = "x" as never)),
        `${prefix} returned invalid object: must have the same name: a != `,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.metadata!.labels = { a: 1 } as never)),
        `${prefix} returned invalid metadata: metadata.labels[a] must be a string, but is int64 in converted object`,
      ],
      [
        answering((_r, response) => ((response.convertedObjects as KubeObject[])[0]!.metadata!.labels = { "bad key!": "x" })),
        `${prefix} returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ];
    for (const [handler, message] of cases) {
      const before = webhook.reviews.length;
      const got = await failure([foo("a")], handler);
      expect(got.message).toBe(message.replace("$UID", webhook.reviews[before]?.request.uid ?? ""));
      expect(got.status).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: got.message, code: 500 });
    }
  });

  it("words a refused object of a batch as upstream words a list's", async () => {
    const prefix = "conversion webhook for example.com/v1, Kind=Foo";
    expect(
      (
        await failure(
          [foo("a"), foo("b")],
          answering((_r, response) => ((response.convertedObjects as KubeObject[])[1]!.kind = "Bar")),
        )
      ).message,
    ).toBe(`${prefix} returned invalid converted object at index 2: invalid kind (expected Foo, received Bar)`);
    expect(
      (
        await failure(
          [foo("a"), foo("b")],
          answering((_r, response) => ((response.convertedObjects as unknown[])[0] = "text")),
        )
      ).message,
    ).toBe(
      `${prefix} returned invalid converted object at index 0: json: cannot unmarshal string into Go value of type map[string]interface {}`,
    );
    expect(
      (
        await failure(
          [foo("a"), foo("b")],
          answering((_r, response) => (response.convertedObjects = [])),
        )
      ).message,
    ).toBe(`${prefix} returned 0 objects, expected 2`);
  });

  it("refuses a CRD with no review version it speaks", async () => {
    expect(
      (
        await failure(
          [foo("a")],
          answering(() => undefined),
          ["v2"],
        )
      ).message,
    ).toBe("no supported conversion review versions");
  });

  it("keeps the labels and annotations the webhook returned and the rest of the input's metadata", async () => {
    answer = answering((_r, response) => {
      const object = (response.convertedObjects as KubeObject[])[0]!;
      object.metadata = {
        ...object.metadata,
        labels: { b: "2" },
        annotations: { note: "x" },
        resourceVersion: "99",
        finalizers: ["f"],
        generation: 5,
      };
    });
    const [out] = await webhookConverter(crd()).convert([foo("a")], "example.com/v2");
    expect(out?.metadata).toEqual({
      name: "a",
      namespace: "ns",
      uid: "uid-a",
      resourceVersion: "7",
      labels: { b: "2" },
      annotations: { note: "x" },
    });
  });

  it("reports a webhook that does not answer in time as client-go does", async () => {
    const slow = await startTestConversionWebhook({});
    slow.server.removeAllListeners("request");
    slow.server.on("request", () => undefined);
    try {
      const converter = webhookConverter(
        {
          ...crd(),
          spec: {
            ...crd().spec,
            conversion: {
              strategy: "Webhook",
              webhook: { clientConfig: { url: `${slow.url}/convert`, caBundle: slow.caBundle }, conversionReviewVersions: ["v1"] },
            },
          },
        },
        { timeoutMs: 200 },
      );
      await expect(converter.convert([foo("a")], "example.com/v2")).rejects.toThrow(
        `conversion webhook for example.com/v1, Kind=Foo failed: Post "${slow.url}/convert?timeout=200ms": context deadline exceeded`,
      );
    } finally {
      await slow.close();
    }
  });
});
