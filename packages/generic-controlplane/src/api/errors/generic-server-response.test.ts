import { describe, expect, it } from "vitest";
import { genericServerResponse } from "./generic-server-response.js";

const tests = { group: "", resource: "tests" };

describe("genericServerResponse (NewGenericServerResponse)", () => {
  it.each([
    [400, "BadRequest", "the server rejected our request for an unknown reason"],
    [401, "Unauthorized", "the server has asked for the client to provide credentials"],
    [404, "NotFound", "the server could not find the requested resource"],
    [405, "MethodNotAllowed", "the server does not allow this method on the requested resource"],
    [422, "Invalid", "the server rejected our request due to an error in our request"],
    [429, "TooManyRequests", "the server has received too many requests and has asked us to try again later"],
    [503, "ServiceUnavailable", "the server is currently unable to handle the request"],
    [504, "Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"],
  ] as const)("%d is %s", (code, reason, message) => {
    const error = genericServerResponse({ code, verb: "GET" });
    expect(error.toStatus()).toMatchObject({ reason, code, message });
  });

  it("tells a conflicting POST (AlreadyExists) from other conflicts", () => {
    expect(genericServerResponse({ code: 409, verb: "POST" }).code).toBe("AlreadyExists");
    expect(genericServerResponse({ code: 409, verb: "PUT" }).code).toBe("Conflict");
    expect(genericServerResponse({ code: 409, verb: "PUT" }).message).toBe("the server reported a conflict");
  });

  it("keeps the server's message where it says more (403, 406, 415) and quotes it for other 5xx", () => {
    expect(genericServerResponse({ code: 403, verb: "GET", serverMessage: "user x cannot" }).message).toBe("user x cannot");
    expect(genericServerResponse({ code: 406, verb: "GET" }).message).toBe(
      "the server was unable to respond with a content type that the client supports",
    );
    expect(genericServerResponse({ code: 406, verb: "GET", serverMessage: "json only" }).message).toBe("json only");
    expect(genericServerResponse({ code: 415, verb: "GET", serverMessage: "yaml only" }).message).toBe("yaml only");
    const bad = genericServerResponse({ code: 502, verb: "GET", serverMessage: "bad gateway" });
    expect(bad.toStatus()).toMatchObject({
      reason: "InternalError",
      code: 502,
      message: 'an error on the server ("bad gateway") has prevented the request from succeeding',
    });
  });

  it("appends the lower-case verb, the qualified resource and the name", () => {
    expect(genericServerResponse({ code: 405, verb: "POST", resource: { group: "coordination.k8s.io", resource: "leases" } }).message).toBe(
      "the server does not allow this method on the requested resource (post leases.coordination.k8s.io)",
    );
    expect(genericServerResponse({ code: 404, verb: "GET", resource: tests, name: "t" }).message).toBe(
      "the server could not find the requested resource (get tests t)",
    );
  });

  // SuggestsClientDelay rows of TestErrorNew.
  it("carries the retry hint it is given and marks an unexpected response with the server's message", () => {
    expect(
      genericServerResponse({
        code: 429,
        verb: "get",
        resource: tests,
        name: "test",
        serverMessage: "doing something",
        retryAfterSeconds: 10,
        isUnexpectedResponse: true,
      }).details,
    ).toEqual({
      name: "test",
      kind: "tests",
      retryAfterSeconds: 10,
      causes: [{ reason: "UnexpectedServerResponse", message: "doing something" }],
    });
    expect(
      genericServerResponse({ code: 500, verb: "get", resource: tests, name: "test", retryAfterSeconds: 10 }).details?.retryAfterSeconds,
    ).toBe(10);
    expect(genericServerResponse({ code: 429, verb: "get", resource: tests, name: "test" }).details?.retryAfterSeconds).toBeUndefined();
  });

  it("refuses a status upstream leaves without a reason", () => {
    expect(() => genericServerResponse({ code: 418, verb: "GET" })).toThrow(RangeError);
  });
});
