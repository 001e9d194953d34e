import { describe, expect, it } from "vitest";
import {
  bodyReadTimeout,
  methodNotAllowed,
  nameMismatch,
  namespaceMismatch,
  notAcceptable,
  pathNotFound,
  shuttingDown,
  tooManyInFlight,
  unsupportedMediaType,
  verbNotRouted,
} from "./endpoint-errors.js";
import { deletedStatus } from "./success-status.js";

describe("request handling errors", () => {
  it("words a body that does not match its URL as the handlers and registry do", () => {
    expect(nameMismatch("a", "b").toStatus()).toMatchObject({
      reason: "BadRequest",
      code: 400,
      message: "the name of the object (a) does not match the name on the URL (b)",
    });
    expect(nameMismatch("", "b").message).toBe("the name of the object () does not match the name on the URL (b)");
    expect(namespaceMismatch().toStatus()).toMatchObject({
      reason: "BadRequest",
      code: 400,
      message: "the namespace of the provided object does not match the namespace sent on the request",
    });
  });

  it("answers an unserved path with the not-found handler's bare Status", () => {
    const status = pathNotFound().toStatus();
    expect(status).toMatchObject({ reason: "NotFound", code: 404, message: "the server could not find the requested resource" });
    expect(status).not.toHaveProperty("details");
  });

  it("names the method and path, or the verb and qualified resource, of a 405", () => {
    expect(methodNotAllowed("PUT", "/api/v1/namespaces/default/configmaps").message).toBe(
      "the server does not allow this method on the requested resource (PUT /api/v1/namespaces/default/configmaps)",
    );
    expect(verbNotRouted("POST", { group: "", resource: "configmaps" }).toStatus()).toMatchObject({
      reason: "MethodNotAllowed",
      code: 405,
      message: "the server does not allow this method on the requested resource (post configmaps)",
      details: { kind: "configmaps" },
    });
  });

  it("lists the media types negotiation accepts", () => {
    expect(notAcceptable().toStatus()).toMatchObject({
      reason: "NotAcceptable",
      code: 406,
      message: "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    });
    expect(notAcceptable(["application/json"]).message).toBe("only the following media types are accepted: application/json");
    expect(unsupportedMediaType("text/plain", ["application/json", "application/yaml"]).toStatus()).toMatchObject({
      reason: "UnsupportedMediaType",
      code: 415,
      message: "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
      details: { causes: [{ reason: "UnexpectedServerResponse", message: 'unsupported media type "text/plain"' }] },
    });
  });

  it("gives a body that never arrived 408 with reason Timeout", () => {
    expect(bodyReadTimeout("no data for 10s").toStatus()).toMatchObject({
      reason: "Timeout",
      code: 408,
      message: "Timeout: request body not received in time: no data for 10s",
    });
  });

  it("asks a client turned away to come back: 5 s while shutting down, 1 s when over the limits", () => {
    expect(shuttingDown().toStatus()).toMatchObject({
      reason: "TooManyRequests",
      code: 429,
      message: "The apiserver is shutting down, please try again later.",
      details: { retryAfterSeconds: 5 },
    });
    expect(tooManyInFlight().toStatus()).toMatchObject({
      reason: "TooManyRequests",
      code: 429,
      message: "Too many requests, please try again later.",
      details: { retryAfterSeconds: 1 },
    });
  });
});

describe("deletedStatus", () => {
  it("is a Success Status naming the object, its group and resource, and uid", () => {
    expect(deletedStatus({ group: "coordination.k8s.io", resource: "leases" }, "l", "u-1")).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "l", group: "coordination.k8s.io", kind: "leases", uid: "u-1" },
      code: 200,
    });
    expect(deletedStatus({ group: "", resource: "configmaps" }, "c", undefined).details).toEqual({ name: "c", kind: "configmaps" });
  });
});
