import { runWithAdmissionRequestContext } from "../../admission/request-context.js";
import { warningHeader } from "../handlers/responsewriters/status.js";
import { setOwn } from "../../patch/json-value.js";
import type { RequestFilter } from "./chain.js";

/**
 * Makes the request's user (as authentication and impersonation left it), its response warnings
 * and its audit annotations visible to admission below, as upstream carries them in
 * `context.Context`.
 *
 * The context holds those three pieces, never the request itself: whatever is created while the
 * request is served keeps the context it was created in, and Node's keep-alive timer is created
 * as a response ends. Holding the request there would keep every finished request (its body, its
 * headers, its response) alive while its connection idles, which made each young-generation
 * collection copy megabytes and stall the event loop for several milliseconds.
 */
export function withAdmissionRequestContext(): RequestFilter {
  return {
    name: "admission-context",
    // `ctx` goes to `next` as an argument: a closure over it here would share its scope with the
    // context's own functions, and so hold the request after all.
    handle(ctx, next) {
      const { user, warnings, auditAnnotations } = ctx;
      return runWithAdmissionRequestContext(
        {
          user,
          addWarning: (text) => warnings.push(warningHeader(text)),
          addAuditAnnotation: (key, value) => {
            setOwn(auditAnnotations, key, value);
          },
        },
        next,
        ctx,
      );
    },
  };
}
