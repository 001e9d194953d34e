import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { callWebhook, WebhookCallError } from "./client.js";
import { staticServiceResolver } from "./client-config.js";
import { createTestCertificateAuthority, readJson, startTestHttpsServer } from "./test-tls.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function serve(names: string[], handler: Parameters<typeof startTestHttpsServer>[1], options: { expired?: boolean } = {}) {
  const ca = await createTestCertificateAuthority();
  const server = await startTestHttpsServer(await ca.issue(names, options), handler);
  cleanups.push(() => server.close());
  return { ca, server };
}

async function failure(promise: Promise<unknown>): Promise<WebhookCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookCallError);
  return error as WebhookCallError;
}

describe("callWebhook", () => {
  it("POSTs JSON over TLS verified with caBundle, with the timeout query parameter, and returns the JSON answer", async () => {
    let seen: { url?: string | undefined; contentType?: string | undefined; body?: unknown } = {};
    const { ca, server } = await serve(["127.0.0.1"], (req, res) => {
      void readJson(req).then((body) => {
        seen = { url: req.url, contentType: req.headers["content-type"], body };
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify({ echoed: body }));
      });
    });
    const answer = await callWebhook({ url: `${server.url}/validate`, caBundle: ca.caBundle }, { hello: "world" }, { timeoutMs: 10_000 });
    expect(answer).toEqual({ echoed: { hello: "world" } });
    expect(seen).toEqual({ url: "/validate?timeout=10s", contentType: "application/json", body: { hello: "world" } });
  });

  it("sends and reads int64s beyond 2^53 exactly, as Go's client does", async () => {
    let sent = "";
    const { ca, server } = await serve(["127.0.0.1"], (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        sent = Buffer.concat(chunks).toString("utf8");
        res.setHeader("Content-Type", "application/json");
        res.end('{"answer":9223372036854775807}');
      });
    });
    const answer = await callWebhook({ url: server.url, caBundle: ca.caBundle }, { total: 9007199254740993n }, { timeoutMs: 10_000 });
    expect(sent).toBe('{"total":9007199254740993}');
    expect(answer).toEqual({ answer: 9223372036854775807n });
  });

  it("calls a service through the resolver and verifies the certificate for <name>.<namespace>.svc", async () => {
    const { ca, server } = await serve(["webhook.system.svc"], (req, res) => res.end(JSON.stringify({ path: req.url })));
    const resolver = staticServiceResolver({ "system/webhook:8443": server.url });
    const answer = await callWebhook(
      { service: { namespace: "system", name: "webhook", port: 8443, path: "/convert" }, caBundle: ca.caBundle },
      {},
      { timeoutMs: 1500, resolver },
    );
    expect(answer).toEqual({ path: "/convert?timeout=1.5s" });

    const other = await serve(["other.system.svc"], (_req, res) => res.end("{}"));
    const wrongName = staticServiceResolver({ "system/webhook:443": other.server.url });
    const error = await failure(
      callWebhook(
        { service: { namespace: "system", name: "webhook" }, caBundle: other.ca.caBundle },
        {},
        { timeoutMs: 5000, resolver: wrongName },
      ),
    );
    expect(error.message).toBe(
      `Post "${other.server.url}/?timeout=5s": tls: failed to verify certificate: x509: certificate is valid for other.system.svc, not webhook.system.svc`,
    );
  });

  it("rejects a certificate from another CA, or an expired one", async () => {
    const { server } = await serve(["127.0.0.1"], (_req, res) => res.end("{}"));
    const stranger = await createTestCertificateAuthority("stranger");
    const error = await failure(callWebhook({ url: server.url, caBundle: stranger.caBundle }, {}, { timeoutMs: 5000 }));
    expect(error.message).toBe(
      `Post "${server.url}/?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );

    const expired = await serve(["127.0.0.1"], (_req, res) => res.end("{}"), { expired: true });
    const old = await failure(callWebhook({ url: expired.server.url, caBundle: expired.ca.caBundle }, {}, { timeoutMs: 5000 }));
    expect(old.message).toMatch(/x509: certificate has expired or is not yet valid$/);
  });

  it("gives up at the deadline with context deadline exceeded", async () => {
    const held: Array<() => void> = [];
    const { ca, server } = await serve(["127.0.0.1"], (_req, res) => held.push(() => res.end("{}")));
    cleanups.push(() => {
      for (const release of held) release();
      return Promise.resolve();
    });
    const error = await failure(callWebhook({ url: `${server.url}/slow`, caBundle: ca.caBundle }, {}, { timeoutMs: 300 }));
    expect(error.timedOut).toBe(true);
    expect(error.message).toBe(`Post "${server.url}/slow?timeout=300ms": context deadline exceeded`);
  });

  it("reports a refused connection as Go does", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const error = await failure(callWebhook({ url: `https://127.0.0.1:${port}/x` }, {}, { timeoutMs: 5000 }));
    expect(error.message).toBe(`Post "https://127.0.0.1:${port}/x?timeout=5s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });

  it("turns an error answer into its Status: the webhook's own Status, else a generic one", async () => {
    let answer: { code: number; body: string } = { code: 500, body: "boom" };
    const { ca, server } = await serve(["127.0.0.1"], (_req, res) => {
      res.statusCode = answer.code;
      res.end(answer.body);
    });
    const config = { url: server.url, caBundle: ca.caBundle };
    const generic = await failure(callWebhook(config, {}, { timeoutMs: 5000 }));
    expect(generic.message).toBe('an error on the server ("boom") has prevented the request from succeeding');
    expect(generic.status).toMatchObject({ code: 500, reason: "InternalError" });

    answer = {
      code: 403,
      body: JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: "no way", reason: "Forbidden", code: 403 }),
    };
    const own = await failure(callWebhook(config, {}, { timeoutMs: 5000 }));
    expect(own.message).toBe("no way");
    expect(own.status).toMatchObject({ reason: "Forbidden", code: 403 });
  });

  it("refuses plain http and configs naming both or neither of url and service", async () => {
    expect((await failure(callWebhook({ url: "http://127.0.0.1:1/" }, {}, { timeoutMs: 1000 }))).message).toBe(
      'unsupported scheme "http": webhooks are called over https',
    );
    expect((await failure(callWebhook({}, {}, { timeoutMs: 1000 }))).message).toBe(
      "exactly one of url and service must be set in the webhook client config",
    );
    const unknown = await failure(
      callWebhook({ service: { namespace: "a", name: "b" } }, {}, { timeoutMs: 1000, resolver: staticServiceResolver({}) }),
    );
    expect(unknown.message).toBe('service "b" not found');
  });
});
