/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read arbitrary JSON responses */
import { describe, expect, it } from "vitest";
import { startTestPlane } from "./test-support.js";

describe("graceful shutdown", () => {
  it("ends open watches cleanly and stops accepting connections", async () => {
    const t = await startTestPlane();
    const rv = (await t.call("GET", "/api/v1/namespaces/default/configmaps")).json.metadata.resourceVersion;
    const response = await fetch(`${t.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
    const reader = response.body!.getReader();
    const read = (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return "ended";
      }
    })();
    await t.close();
    expect(await read).toBe("ended");
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
  });
});
