import { createCertificateAuthority, issueServingCertificate } from "../../certs/authority.js";
import type { Server } from "node:https";
import type { KubeObject } from "../../api/types.js";
import { readJson, startTestHttpsServer } from "../../webhook/test-tls.js";

/** The `request` of a ConversionReview as a conversion webhook receives it. */
export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: KubeObject[];
}

export interface ReceivedReview {
  path: string;
  /** `apiextensions.k8s.io/v1` or `v1beta1`. */
  apiVersion: string;
  request: ConversionRequest;
  /** The `timeout` query parameter the server sent. */
  timeout: string | null;
}

/** Answers one review with the whole response body (so tests can answer wrongly on purpose). */
export type ReviewHandler = (review: ReceivedReview) => unknown;

/**
 * A conversion webhook over HTTPS on 127.0.0.1, its serving certificate signed by a CA made with
 * the package's certificate helpers, serving a handler per path and recording every review.
 */
export interface TestConversionWebhook {
  readonly url: string;
  readonly port: number;
  /** Base64 PEM of the CA, for `caBundle`. */
  readonly caBundle: string;
  readonly reviews: ReceivedReview[];
  readonly server: Server;
  close(): Promise<void>;
}

/** The DNS name of the e2e suite's conversion webhook Service, which the serving certificate also carries. */
export const CONVERSION_SERVICE = { namespace: "crd-webhook", name: "e2e-test-crd-conversion-webhook" } as const;

export async function startTestConversionWebhook(handlers: Record<string, ReviewHandler>): Promise<TestConversionWebhook> {
  const ca = await createCertificateAuthority("conversion-webhook-ca");
  const serving = await issueServingCertificate(ca, "conversion-webhook", [
    "127.0.0.1",
    `${CONVERSION_SERVICE.name}.${CONVERSION_SERVICE.namespace}.svc`,
  ]);
  const reviews: ReceivedReview[] = [];
  const server = await startTestHttpsServer(serving, (req, res) => {
    const url = new URL(req.url ?? "/", "https://x");
    void (async () => {
      const body = (await readJson(req)) as { apiVersion: string; request: ConversionRequest };
      const received: ReceivedReview = {
        path: url.pathname,
        apiVersion: body.apiVersion,
        request: body.request,
        timeout: url.searchParams.get("timeout"),
      };
      reviews.push(received);
      const handler = handlers[url.pathname];
      if (handler === undefined) {
        res.statusCode = 404;
        res.end("no such webhook");
        return;
      }
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify(handler(received)));
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  return {
    url: server.url,
    port: server.port,
    caBundle: Buffer.from(ca.cert).toString("base64"),
    reviews,
    server: server.server,
    close: () => server.close(),
  };
}

/** What converting one object gives: the object (its apiVersion set by the framework) or a failure message. */
export type ObjectConversion = (object: KubeObject, desiredAPIVersion: string) => KubeObject | { failure: string };

/**
 * A handler built like the sample webhook's framework (agnhost `crd-conversion-webhook`): each
 * object converted on a copy, given the desired apiVersion, answered in the review's own version
 * with the request's uid; the first failure answers the whole review with `Failure`.
 */
export function convertEach(convert: ObjectConversion): ReviewHandler {
  return (review) => {
    const converted: KubeObject[] = [];
    let result: Record<string, unknown> = { metadata: {}, status: "Success" };
    for (const object of review.request.objects) {
      const out = convert(structuredClone(object), review.request.desiredAPIVersion);
      if ("failure" in out) {
        result = { metadata: {}, status: "Failure", message: out.failure };
        break;
      }
      out.apiVersion = review.request.desiredAPIVersion;
      converted.push(out);
    }
    const failed = result.status !== "Success";
    return {
      apiVersion: review.apiVersion,
      kind: "ConversionReview",
      response: { uid: review.request.uid, convertedObjects: failed ? [] : converted, result },
    };
  };
}

/**
 * The e2e suite's converter (agnhost `convertExampleCRD`): `stable.example.com/v1`'s `hostPort`
 * ("localhost:8080") is v2's `host` and `port`.
 */
export const hostPortConversion: ObjectConversion = (object, desired) => {
  const from = object.apiVersion ?? "";
  const fields = object as Record<string, unknown>;
  if (desired === from) return { failure: `conversion from a version to itself should not call the webhook: ${desired}` };
  if (from === "stable.example.com/v1") {
    if (desired !== "stable.example.com/v2") return { failure: `unexpected conversion version "${desired}"` };
    if ("hostPort" in fields) {
      const parts = String(fields.hostPort).split(":");
      if (parts.length !== 2) return { failure: `invalid hostPort value \`${String(fields.hostPort)}\`` };
      delete fields.hostPort;
      fields.host = parts[0];
      fields.port = parts[1];
    }
    return object;
  }
  if (from === "stable.example.com/v2") {
    if (desired !== "stable.example.com/v1") return { failure: `unexpected conversion version "${desired}"` };
    if ("host" in fields || "port" in fields) {
      const text = (value: unknown) => (typeof value === "string" ? value : "");
      fields.hostPort = `${text(fields.host)}:${text(fields.port)}`;
      delete fields.host;
      delete fields.port;
    }
    return object;
  }
  return { failure: `unexpected conversion version "${from}"` };
};
