import { AsyncLocalStorage } from "node:async_hooks";

/** Who made a request, as admission (and AdmissionReview's `userInfo`) sees it. */
export interface AdmissionUserInfo {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/**
 * What admission reads from and adds to the request being served, the things upstream carries in
 * `context.Context`: the authenticated user (`request.UserFrom`), response warnings
 * (`warning.AddWarning`) and audit annotations (`Attributes.AddAnnotation`).
 */
export interface AdmissionRequestContext {
  readonly user: AdmissionUserInfo | undefined;
  addWarning(text: string): void;
  addAuditAnnotation(key: string, value: string): void;
}

const storage = new AsyncLocalStorage<AdmissionRequestContext>();

/** Runs `fn(arg)` (the serving of one request) with `context` visible to admission plugins below it. */
export function runWithAdmissionRequestContext<A, T>(context: AdmissionRequestContext, fn: (arg: A) => T, arg: A): T {
  return storage.run(context, fn, arg);
}

/** The request being admitted; undefined for writes that come from no HTTP request (in-process callers). */
export function currentAdmissionRequestContext(): AdmissionRequestContext | undefined {
  return storage.getStore();
}
