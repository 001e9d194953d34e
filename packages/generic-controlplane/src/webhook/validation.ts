import { childPath, fieldInvalid, fieldRequired, type FieldError } from "../validation/field-errors.js";
import { isDNS1123Subdomain } from "@kubekit/apimachinery";
import type { WebhookClientConfig } from "./client-config.js";

const FORM = "; desired format: https://host[/path]";

/** k8s.io/apiserver `webhook.ValidateWebhookURL` with https required. */
export function validateWebhookURL(field: string, value: string): FieldError[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    return [fieldRequired(field, `url must be a valid URL: ${error instanceof Error ? error.message : String(error)}${FORM}`)];
  }
  const errors: FieldError[] = [];
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== "https") errors.push(fieldInvalid(field, scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (url.host === "") errors.push(fieldInvalid(field, url.host, `host must be specified${FORM}`));
  if (url.username !== "" || url.password !== "") {
    errors.push(
      fieldInvalid(
        field,
        url.password === "" ? url.username : `${url.username}:${url.password}`,
        "user information is not permitted in the URL",
      ),
    );
  }
  if (url.hash !== "" || value.includes("#"))
    errors.push(fieldInvalid(field, url.hash.replace(/^#/, ""), "fragments are not permitted in the URL"));
  if (url.search !== "" || value.includes("?"))
    errors.push(fieldInvalid(field, url.search.replace(/^\?/, ""), "query parameters are not permitted in the URL"));
  return errors;
}

/** k8s.io/apiserver `webhook.ValidateWebhookService`. */
export function validateWebhookService(
  field: string,
  service: { name?: string; namespace?: string; path?: string; port?: number },
): FieldError[] {
  const errors: FieldError[] = [];
  if (!service.name) errors.push(fieldRequired(childPath(field, "name"), "service name is required"));
  if (!service.namespace) errors.push(fieldRequired(childPath(field, "namespace"), "service namespace is required"));
  const port = service.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errors.push(fieldInvalid(childPath(field, "port"), port, "port is not valid: must be between 1 and 65535, inclusive"));
  const path = service.path;
  if (path === undefined || path === "" || path === "/") return errors;
  const pathField = childPath(field, "path");
  if (path === "//") return [...errors, fieldInvalid(pathField, path, "segment[0] may not be empty")];
  if (!path.startsWith("/")) errors.push(fieldInvalid(pathField, path, "must start with a '/'"));
  let rest = path.slice(1);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  rest.split("/").forEach((step, i) => {
    if (step === "") {
      errors.push(fieldInvalid(pathField, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errors.push(fieldInvalid(pathField, path, `segment[${i}]: ${failure}`));
  });
  return errors;
}

/** Exactly one of `url` and `service`, each valid (admission webhooks and CRD conversion webhooks alike). */
export function validateWebhookClientConfig(field: string, config: WebhookClientConfig | undefined): FieldError[] {
  const url = config?.url;
  const service = config?.service;
  if ((url === undefined) === (service === undefined)) return [fieldRequired(field, "exactly one of url or service is required")];
  if (url !== undefined) return validateWebhookURL(childPath(field, "url"), url);
  return validateWebhookService(childPath(field, "service"), service ?? {});
}
