import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "../request-info.js";
import { estimateSeats } from "./work-estimate.js";

const estimate = (method: string, path: string, query: string, stored: number | undefined) => {
  const params = new URLSearchParams(query);
  return estimateSeats(parseRequestInfo(method, path, params), params, stored);
};
const CM = "/api/v1/namespaces/default/configmaps";

describe("estimateSeats", () => {
  it("charges a LIST one seat per 100 objects read, between 1 and 10", () => {
    expect(estimate("GET", CM, "", 0)).toBe(1);
    expect(estimate("GET", CM, "", 49)).toBe(1);
    expect(estimate("GET", CM, "", 250)).toBe(5);
    expect(estimate("GET", CM, "", 50_000)).toBe(10);
  });

  it("charges a paged LIST for twice its page, and a filtered one for every stored object", () => {
    expect(estimate("GET", CM, "limit=100", 50_000)).toBe(2);
    expect(estimate("GET", CM, "limit=100&labelSelector=a%3Db", 50_000)).toBe(10);
    expect(estimate("GET", CM, "limit=500&fieldSelector=metadata.name%3Dx", 300)).toBe(3);
  });

  it("charges a watch's initial listing, and one seat for a watch from a resourceVersion, a GET or a write", () => {
    expect(estimate("GET", CM, "watch=1", 400)).toBe(4);
    expect(estimate("GET", CM, "watch=1&resourceVersion=12", 400)).toBe(1);
    expect(estimate("GET", `${CM}/x`, "", 400)).toBe(1);
    expect(estimate("POST", CM, "", 400)).toBe(1);
    expect(estimate("GET", CM, "", undefined)).toBe(1);
  });
});
