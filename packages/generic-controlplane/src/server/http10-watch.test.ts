/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { configMap, startTestPlane } from "./test-support.js";

describe("a watch over HTTP/1.0", () => {
  it("is sent without chunked framing (HTTP/1.0 has none) and ends by closing the connection", async () => {
    const t = await startTestPlane();
    try {
      const rv = (await t.call("GET", "/api/v1/namespaces/default/configmaps")).json.metadata.resourceVersion as string;
      const socket = connect(Number(new URL(t.url).port), "127.0.0.1");
      let raw = "";
      socket.setEncoding("utf8");
      const headersArrived = new Promise<void>((resolve) =>
        socket.on("data", (chunk: string) => {
          raw += chunk;
          if (raw.includes("\r\n\r\n")) resolve();
        }),
      );
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.write(
        `GET /api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=1 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`,
      );
      await headersArrived;
      await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("over-http10") });
      await closed;

      const head = raw.slice(0, raw.indexOf("\r\n\r\n")).toLowerCase();
      const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
      expect(head).toMatch(/^http\/1\.[01] 200 ok/);
      expect(head).not.toContain("transfer-encoding");
      expect(head).not.toContain("content-length");
      // The body is the bare event stream: one JSON event per line, no chunk sizes in between.
      const lines = body.split("\n").filter((line) => line !== "");
      expect(lines.length).toBe(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ type: "ADDED", object: { metadata: { name: "over-http10" } } });
    } finally {
      await t.close();
    }
  });
});
