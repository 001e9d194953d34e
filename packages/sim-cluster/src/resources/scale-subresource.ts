/** The `scale` subresource as discovery lists it: it speaks autoscaling/v1 Scale, which `kubectl scale` looks up. */
export const SCALE_SUBRESOURCE = {
  name: "scale",
  verbs: ["get", "patch", "update"],
  kind: { group: "autoscaling", version: "v1", kind: "Scale" },
};
