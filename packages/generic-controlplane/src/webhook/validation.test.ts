import { describe, expect, it } from "vitest";
import { formatFieldError } from "../validation/field-errors.js";
import { validateWebhookClientConfig } from "./validation.js";

const check = (config: Parameters<typeof validateWebhookClientConfig>[1]) =>
  validateWebhookClientConfig("clientConfig", config).map(formatFieldError);

describe("webhook client config validation (k8s.io/apiserver util/webhook)", () => {
  it("accepts an https URL or a service", () => {
    expect(check({ url: "https://example.com:8443/hook" })).toEqual([]);
    expect(check({ service: { namespace: "ns", name: "svc", path: "/a/b", port: 8443 } })).toEqual([]);
  });

  it("needs exactly one of url and service", () => {
    expect(check({})).toEqual(["clientConfig: Required value: exactly one of url or service is required"]);
    expect(check({ url: "https://a.b", service: { namespace: "n", name: "s" } })).toEqual([
      "clientConfig: Required value: exactly one of url or service is required",
    ]);
  });

  it("refuses other schemes, user information, fragments and queries", () => {
    expect(check({ url: "http://user:pw@example.com/x?y=1#z" })).toEqual([
      `clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'clientConfig.url: Invalid value: "user:pw": user information is not permitted in the URL',
      'clientConfig.url: Invalid value: "z": fragments are not permitted in the URL',
      'clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL',
    ]);
    expect(check({ url: "not a url" })[0]).toMatch(
      /^clientConfig\.url: Required value: url must be a valid URL: .*; desired format: https:\/\/host\[\/path\]$/,
    );
  });

  it("checks the service's name, namespace, port and path segments", () => {
    expect(check({ service: { namespace: "", name: "", port: 70000, path: "/ok//Bad_" } })).toEqual([
      "clientConfig.service.name: Required value: service name is required",
      "clientConfig.service.namespace: Required value: service namespace is required",
      "clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
      'clientConfig.service.path: Invalid value: "/ok//Bad_": segment[1] may not be empty',
      expect.stringMatching(/^clientConfig\.service\.path: Invalid value: "\/ok\/\/Bad_": segment\[2\]: a lowercase RFC 1123 subdomain/),
    ]);
  });
});
