import { describe, expect, it } from "vitest";
import { configFromKubeconfig, parseGoDuration } from "./index.js";
import { parseExactJson, stringifyExactJson } from "./json.js";

// The README example's claims, checked against the sources (the consumer check runs it as published).
describe("README example", () => {
  it("reads the context's server, namespace and TLS choice", async () => {
    const config = await configFromKubeconfig(`
apiVersion: v1
kind: Config
clusters: [{ name: dev, cluster: { server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true } }]
users: [{ name: me, user: { token: s3cret } }]
contexts: [{ name: dev, context: { cluster: dev, user: me, namespace: team-a } }]
current-context: dev
`);
    expect([config.server, config.namespace, config.insecureSkipTLSVerify, config.token]).toEqual([
      "https://127.0.0.1:6443",
      "team-a",
      true,
      "s3cret",
    ]);
  });

  it("keeps an int64 beyond 2^53 exact both ways, and reads Go durations in milliseconds", () => {
    const text = '{"metadata":{"generation":9223372036854775807}}';
    const object = parseExactJson(text) as { metadata: { generation: bigint } };
    expect(object.metadata.generation).toBe(9223372036854775807n);
    expect(stringifyExactJson(object)).toBe(text);
    expect(parseGoDuration("1m30s")).toBe(90_000);
  });
});
