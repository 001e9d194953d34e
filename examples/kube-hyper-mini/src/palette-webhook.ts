import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createCertificateAuthority, issueServingCertificate, type AdmissionReview } from "@kubekit/generic-controlplane";
import { reviewWidget } from "./palette.js";

/** Where the palette webhook is reached: its URL path. */
export const PALETTE_PATH = "/validate-widgets";

/** AdmissionReview bodies are small; anything larger is not one. */
const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export interface PaletteWebhook {
  /** `https://127.0.0.1:<port>/validate-widgets`. */
  url: string;
  /** Base64 of the PEM of the CA that signed the webhook's certificate (a webhook's `caBundle`). */
  caBundle: string;
  close(): Promise<void>;
}

/**
 * Serves the palette webhook over HTTPS on a free loopback port, with a serving certificate from
 * a CA of its own (made at start, so nothing but this process and the API server it configures
 * ever trusts it).
 */
export async function startPaletteWebhook(host = "127.0.0.1"): Promise<PaletteWebhook> {
  const ca = await createCertificateAuthority("kube-hyper-mini-webhook-ca");
  const serving = await issueServingCertificate(ca, "kube-hyper-mini-webhook", [host]);
  const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const reply = (code: number, body: unknown) => {
      res.writeHead(code, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || new URL(req.url ?? "/", "https://webhook").pathname !== PALETTE_PATH) {
      reply(404, { message: "not found" });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REVIEW_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", () => {
      let review: Partial<AdmissionReview>;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Partial<AdmissionReview>;
      } catch {
        reply(400, { message: "the body is not an AdmissionReview" });
        return;
      }
      if (review.request === undefined) {
        reply(400, { message: "the AdmissionReview has no request" });
        return;
      }
      reply(200, { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: reviewWidget(review.request) });
    });
  });
  await listen(server, host);
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${host}:${port}${PALETTE_PATH}`,
    caBundle: Buffer.from(ca.cert).toString("base64"),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
