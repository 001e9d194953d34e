import { describe, expect, it } from "vitest";
import {
  badRequest,
  gone,
  internalError,
  requestEntityTooLarge,
  resourceExpired,
  serviceUnavailable,
  timeoutError,
  tooManyRequests,
  tooManyRequestsError,
  unauthorized,
} from "./request-errors.js";

// Ported from apimachinery pkg/api/errors/errors_test.go (TestErrorNew and the Is*/SuggestsClientDelay
// tables): the reason, HTTP status, wording and retry hint of each message-only constructor.
describe("request errors", () => {
  it.each([
    ["badRequest", badRequest("reason"), "BadRequest", 400, "reason"],
    ["unauthorized", unauthorized("reason"), "Unauthorized", 401, "reason"],
    ["unauthorized without a reason", unauthorized(""), "Unauthorized", 401, "not authorized"],
    ["gone", gone("gone away"), "Gone", 410, "gone away"],
    ["resourceExpired", resourceExpired("too old resource version: 1 (2)"), "Expired", 410, "too old resource version: 1 (2)"],
    ["serviceUnavailable", serviceUnavailable("down"), "ServiceUnavailable", 503, "down"],
    ["tooManyRequests", tooManyRequests("doing something", 10), "TooManyRequests", 429, "doing something"],
    ["tooManyRequestsError", tooManyRequestsError("slow down"), "TooManyRequests", 429, "Too many requests: slow down"],
    ["timeoutError", timeoutError("test reason", 10), "Timeout", 504, "Timeout: test reason"],
    ["requestEntityTooLarge", requestEntityTooLarge("limit is 3"), "RequestEntityTooLarge", 413, "Request entity too large: limit is 3"],
  ] as const)("%s", (_name, error, reason, code, message) => {
    expect(error.toStatus()).toMatchObject({ kind: "Status", status: "Failure", reason, code, message });
    expect(error.httpStatus).toBe(code);
  });

  it("asks for a delay where the constructor takes one, and only then", () => {
    expect(timeoutError("test reason", 10).details?.retryAfterSeconds).toBe(10);
    expect(tooManyRequests("doing something", 10).details?.retryAfterSeconds).toBe(10);
    expect(tooManyRequests("doing something", 1).details?.retryAfterSeconds).toBe(1);
    // A zero retry is left out of the details, as Go's omitempty does.
    expect(timeoutError("test reason", 0).toStatus().details).toEqual({});
    expect(tooManyRequestsError("x").details).toBeUndefined();
  });

  it("reports an internal error with its text as the message and the one cause", () => {
    const cause = new Error("disk on fire");
    const error = internalError(cause);
    expect(error.toStatus()).toMatchObject({
      reason: "InternalError",
      code: 500,
      message: "Internal error occurred: disk on fire",
      details: { causes: [{ message: "disk on fire" }] },
    });
    expect(error.cause).toBe(cause);
    expect(internalError("plain text").message).toBe("Internal error occurred: plain text");
  });

  it("keeps a cause for logs and a continue token for the client", () => {
    const cause = new Error("compacted");
    const error = resourceExpired("The provided continue parameter is too old.", { cause, continueToken: "tok" });
    expect(error.cause).toBe(cause);
    expect(error.toStatus().metadata).toEqual({ continue: "tok" });
    expect(badRequest("x", { cause }).cause).toBe(cause);
  });
});
