import { randomUUID } from "node:crypto";
import type { KubeObject } from "../../api/types.js";
import { conversionFailed } from "../../api/errors/index.js";
import { callWebhook } from "../../webhook/client.js";
import type { ServiceResolver } from "../../webhook/client-config.js";
import type { CustomResourceConverter } from "../conversion.js";
import type { CustomResourceDefinition } from "../types.js";
import { restoreObjectMeta } from "./object-meta.js";
import { gvkText, goTypeName } from "./go-text.js";

/**
 * upstream's webhook client gives every call 30 s (`util/webhook`'s default request timeout): the
 * conversion call has no timeout of its own.
 */
const CONVERSION_TIMEOUT_MS = 30_000;

const REVIEW_GROUP = "apiextensions.k8s.io";

export interface WebhookConverterOptions {
  /** Resolves `service` client configs (the control plane's `webhooks.serviceResolver`). */
  resolver?: ServiceResolver | undefined;
  timeoutMs?: number;
}

interface ConversionResponse {
  uid?: unknown;
  convertedObjects?: unknown;
  result?: { status?: unknown; message?: unknown };
}

/**
 * The `Webhook` strategy (upstream `webhookConverter`): one ConversionReview per batch, in the
 * first of `conversionReviewVersions` this server speaks (v1, v1beta1), over the admission
 * webhooks' HTTPS client. The answer is checked as upstream checks it (kind, uid, result, object
 * count, each object's group/version, kind, name, namespace and uid); metadata other than labels
 * and annotations is taken from the input, whatever the webhook returned.
 */
export function webhookConverter(crd: CustomResourceDefinition, options: WebhookConverterOptions = {}): CustomResourceConverter {
  const webhook = crd.spec?.conversion?.webhook;
  const clientConfig = webhook?.clientConfig ?? {};
  const reviewVersions = webhook?.conversionReviewVersions ?? [];
  const timeoutMs = options.timeoutMs ?? CONVERSION_TIMEOUT_MS;
  return {
    async convert(objects, apiVersion) {
      if (objects.length === 0) return objects;
      const single = objects.length === 1;
      const subject = gvkText(objects[0]!);
      // upstream special-cases an object with nothing but apiVersion and kind: converted without a call.
      if (single && isEmptyObject(objects[0]!)) {
        objects[0]!.apiVersion = apiVersion;
        return objects;
      }
      const reviewVersion = reviewVersions.find((v) => v === "v1" || v === "v1beta1");
      if (reviewVersion === undefined) throw conversionFailed("no supported conversion review versions");
      const uid = randomUUID();
      const review = {
        kind: "ConversionReview",
        apiVersion: `${REVIEW_GROUP}/${reviewVersion}`,
        request: { uid, desiredAPIVersion: apiVersion, objects },
        response: { uid: "", convertedObjects: null, result: { metadata: {} } },
      };
      let answer: unknown;
      try {
        answer = await callWebhook(clientConfig, review, { timeoutMs, ...(options.resolver ? { resolver: options.resolver } : {}) });
      } catch (error) {
        throw conversionFailed(`conversion webhook for ${subject} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      let converted: unknown[];
      try {
        converted = convertedObjectsOf(answer, reviewVersion, uid);
      } catch (error) {
        throw conversionFailed(`conversion webhook for ${subject} failed: ${(error as Error).message}`);
      }
      if (converted.length !== objects.length) {
        throw conversionFailed(`conversion webhook for ${subject} returned ${converted.length} objects, expected ${objects.length}`);
      }
      return objects.map((original, index) => checkConverted(original, converted[index], apiVersion, single ? undefined : index));
    },
  };
}

/** upstream `isEmptyUnstructuredObject`. */
function isEmptyObject(object: KubeObject): boolean {
  const keys = Object.keys(object);
  return keys.length === 2 && "apiVersion" in object && "kind" in object;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** upstream `getConvertedObjectsFromResponse`. */
function convertedObjectsOf(answer: unknown, reviewVersion: string, uid: string): unknown[] {
  const review = isRecord(answer) ? answer : {};
  if (reviewVersion === "v1") {
    // v1 answers must say what they are and whom they answer; v1beta1 never checked either.
    const got = gvkText({
      apiVersion: typeof review.apiVersion === "string" ? review.apiVersion : "",
      kind: typeof review.kind === "string" ? review.kind : "",
    });
    if (got !== `${REVIEW_GROUP}/v1, Kind=ConversionReview`)
      throw new Error(`expected webhook response of ${REVIEW_GROUP}/v1, Kind=ConversionReview, got ${got}`);
  }
  const response = review.response;
  if (!isRecord(response)) throw new Error("no response provided");
  const typed = response as ConversionResponse;
  if (reviewVersion === "v1" && typed.uid !== uid)
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof typed.uid === "string" ? typed.uid : "")}`);
  const status = typeof typed.result?.status === "string" ? typed.result.status : "";
  if (status !== "Success") {
    const message = typeof typed.result?.message === "string" ? typed.result.message : "";
    throw new Error(message.length > 0 ? message : `response.result.status was '${status}', not 'Success'`);
  }
  return Array.isArray(typed.convertedObjects) ? typed.convertedObjects : [];
}

/**
 * One converted object checked against its original and given the original's metadata (labels and
 * annotations excepted). `index` is set for batches of more than one, which upstream words as a
 * list's conversion (`... at index N`), undefined for one object.
 */
function checkConverted(original: KubeObject, raw: unknown, apiVersion: string, index: number | undefined): KubeObject {
  const subject = gvkText(original);
  if (!isRecord(raw)) {
    const why = `json: cannot unmarshal ${jsonTypeWord(raw)} into Go value of type map[string]interface {}`;
    throw conversionFailed(
      index === undefined ? why : `conversion webhook for ${subject} returned invalid converted object at index ${index}: ${why}`,
    );
  }
  if (typeof raw.kind !== "string" || raw.kind === "") {
    const why = `Object 'Kind' is missing in '${JSON.stringify(raw)}'`;
    throw conversionFailed(
      index === undefined ? why : `conversion webhook for ${subject} returned invalid converted object at index ${index}: ${why}`,
    );
  }
  const converted = raw as KubeObject;
  // upstream counts the object before these checks, so a list's messages name the next index.
  const invalid =
    index === undefined
      ? `conversion webhook for ${subject} returned invalid object at index 0`
      : `conversion webhook for ${subject} returned invalid converted object at index ${index + 1}`;
  const received = typeof converted.apiVersion === "string" ? converted.apiVersion : "";
  if (received !== apiVersion) throw conversionFailed(`${invalid}: invalid groupVersion (expected ${apiVersion}, received ${received})`);
  if (converted.kind !== original.kind)
    throw conversionFailed(`${invalid}: invalid kind (expected ${original.kind ?? ""}, received ${converted.kind ?? ""})`);
  const mismatch = sameIdentity(original, converted);
  if (mismatch !== undefined) {
    throw conversionFailed(
      index === undefined ? `conversion webhook for ${subject} returned invalid object: ${mismatch}` : `${invalid}: ${mismatch}`,
    );
  }
  const metaError = restoreObjectMeta(original, converted);
  if (metaError !== undefined) {
    throw conversionFailed(
      index === undefined
        ? `conversion webhook for ${subject} returned invalid metadata: ${metaError}`
        : `conversion webhook for ${subject} returned invalid metadata in object at index ${index + 1}: ${metaError}`,
    );
  }
  return converted;
}

/** upstream `validateConvertedObject`: kind, name, namespace and uid stay as they were. */
function sameIdentity(original: KubeObject, converted: KubeObject): string | undefined {
  const field = (object: KubeObject, name: "name" | "namespace" | "uid") => {
    const meta: unknown = object.metadata;
    const value = isRecord(meta) ? meta[name] : undefined;
    return typeof value === "string" ? value : "";
  };
  if (original.kind !== converted.kind) return `must have the same kind: ${original.kind ?? ""} != ${converted.kind ?? ""}`;
  if (field(original, "name") !== field(converted, "name"))
    return `must have the same name: ${field(original, "name")} != ${field(converted, "name")}`;
  if (field(original, "namespace") !== field(converted, "namespace"))
    return `must have the same namespace: ${field(original, "namespace")} != ${field(converted, "namespace")}`;
  if (field(original, "uid") !== field(converted, "uid"))
    return `must have the same UID: ${field(original, "uid")} != ${field(converted, "uid")}`;
  return undefined;
}

/** The JSON type word encoding/json uses in an UnmarshalTypeError. */
function jsonTypeWord(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  return goTypeName(value);
}
