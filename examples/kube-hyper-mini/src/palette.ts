import type { AdmissionReviewRequest } from "@kubekit/generic-controlplane";

/** The colors a widget may have. */
export const PALETTE = ["red", "green", "blue"] as const;

/** An AdmissionReview v1 response, as a validating webhook answers. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string };
}

/**
 * The palette webhook's decision on a widget being created or updated: a color outside the
 * palette is refused (403 Forbidden, so clients show why), anything else is allowed. The schema
 * cannot say this by itself because the palette is the webhook's to change.
 */
export function reviewWidget(request: AdmissionReviewRequest): AdmissionResponse {
  const color = (request.object as { spec?: { color?: unknown } } | null)?.spec?.color;
  if (typeof color === "string" && !(PALETTE as readonly string[]).includes(color)) {
    return {
      uid: request.uid,
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message: `widget color ${JSON.stringify(color)} is not in the palette (${PALETTE.join(", ")})`,
      },
    };
  }
  return { uid: request.uid, allowed: true };
}
