import { applyMergePatch as mergePatch } from "@kubekit/apimachinery";
import { badRequest } from "../api/errors/index.js";

/** RFC 7386 JSON merge patch of a request body; an absent body is the client's error. */
export function applyMergePatch<T = unknown>(document: unknown, patch: unknown): T {
  if (patch === undefined) throw badRequest("merge patch body must be a JSON value");
  return mergePatch<T>(document, patch);
}
