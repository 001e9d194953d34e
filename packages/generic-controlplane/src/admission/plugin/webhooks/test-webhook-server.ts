import {
  createTestCertificateAuthority,
  readJson,
  startTestHttpsServer,
  type TestCertificateAuthority,
} from "../../../webhook/test-tls.js";
import type { AdmissionReview, AdmissionReviewRequest } from "./admission-review.js";

/** What a test webhook answers: `allowed` plus optional status, JSON patch, warnings, audit annotations. */
export interface TestAdmissionResponse {
  allowed: boolean;
  status?: { message?: string; reason?: string; code?: number };
  patch?: unknown[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export type TestWebhookHandler = (request: AdmissionReviewRequest) => TestAdmissionResponse | Promise<TestAdmissionResponse>;

/**
 * An admission webhook over HTTPS on 127.0.0.1, serving a handler per path (like the e2e suite's
 * sample webhook), recording every AdmissionReview it receives.
 */
export interface TestWebhookServer {
  readonly ca: TestCertificateAuthority;
  readonly url: string;
  readonly reviews: Array<{ path: string; request: AdmissionReviewRequest }>;
  /** The reviews a path received. */
  received(path: string): AdmissionReviewRequest[];
  close(): Promise<void>;
}

export async function startTestWebhookServer(handlers: Record<string, TestWebhookHandler>): Promise<TestWebhookServer> {
  const ca = await createTestCertificateAuthority("webhook-ca");
  const reviews: Array<{ path: string; request: AdmissionReviewRequest }> = [];
  const server = await startTestHttpsServer(await ca.issue(["127.0.0.1", "e2e-test-webhook.webhook-test.svc"]), (req, res) => {
    const path = new URL(req.url ?? "/", "https://x").pathname;
    void (async () => {
      const review = (await readJson(req)) as AdmissionReview;
      reviews.push({ path, request: review.request });
      const handler = handlers[path];
      if (handler === undefined) {
        res.statusCode = 404;
        res.end("no such webhook");
        return;
      }
      const answer = await handler(review.request);
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: answer.allowed };
      if (answer.status) response.status = answer.status;
      if (answer.patch) {
        response.patchType = "JSONPatch";
        response.patch = Buffer.from(JSON.stringify(answer.patch)).toString("base64");
      }
      if (answer.warnings) response.warnings = answer.warnings;
      if (answer.auditAnnotations) response.auditAnnotations = answer.auditAnnotations;
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response }));
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  return {
    ca,
    url: server.url,
    reviews,
    received: (path) => reviews.filter((r) => r.path === path).map((r) => r.request),
    close: () => server.close(),
  };
}
