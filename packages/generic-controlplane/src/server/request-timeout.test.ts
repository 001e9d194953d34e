import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "./test-support.js";

// Ports test/e2e/apimachinery/request_timeout.go ("Server request timeout") onto a served resource.
let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";

describe("Server request timeout", () => {
  it("should return HTTP status code 400 if the user specifies an invalid timeout in the request URL", async () => {
    const response = await t.call("GET", `${CONFIGMAPS}?timeout=invalid`);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ kind: "Status", reason: "BadRequest" });
    expect(response.text).toContain("invalid timeout specified in the request URL");
  });

  it("the request should be served with a default timeout if the specified timeout in the request URL exceeds maximum allowed", async () => {
    expect((await t.call("GET", `${CONFIGMAPS}?timeout=3m`)).status).toBe(200);
  });

  it("default timeout should be used if the specified timeout in the request URL is 0s", async () => {
    expect((await t.call("GET", `${CONFIGMAPS}?timeout=0s`)).status).toBe(200);
  });
});
