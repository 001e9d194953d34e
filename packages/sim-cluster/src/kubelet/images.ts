/**
 * Image references as a container runtime resolves them, and which ones fail to pull. Nothing is
 * pulled here: a rule says which images no registry serves, so a pod can show the
 * ErrImagePull/ImagePullBackOff a kubelet reports for them.
 */

/** Decides whether pulling `image` (as written in the pod spec) fails. */
export type ImagePullRule = (image: string) => boolean;

/** The reference's registry host, when the image names one (`host/…`, as the docker reference grammar tells it from a path). */
function registryHost(image: string): string | undefined {
  const slash = image.indexOf("/");
  if (slash < 0) return undefined;
  const first = image.slice(0, slash);
  return first.includes(".") || first.includes(":") || first === "localhost" ? first : undefined;
}

/** `foo` → `docker.io/library/foo:latest`, as containerd names the image it pulls. */
export function normalizedImageReference(image: string): string {
  const host = registryHost(image);
  let name = image;
  if (host === undefined) name = image.includes("/") ? `docker.io/${image}` : `docker.io/library/${image}`;
  const lastSlash = name.lastIndexOf("/");
  const tagged = name.includes("@") || name.slice(lastSlash + 1).includes(":");
  return tagged ? name : `${name}:latest`;
}

/**
 * The default rule: an image of a registry under the reserved `.invalid` top-level domain (RFC
 * 2606, e.g. `foo.invalid/none:latest`) or named `invalid.…` (upstream's `InvalidRegistryImage`,
 * `invalid.registry.k8s.io/invalid/alpine:3.1`), or tagged `non-existent`/`nonexistent`, as
 * upstream's e2e tests name the images they expect not to pull (`foo:non-existent`).
 */
export function isUnpullableImage(image: string): boolean {
  const host = registryHost(image)?.replace(/:\d+$/, "").toLowerCase();
  if (host !== undefined && (host === "invalid" || host.endsWith(".invalid") || host.startsWith("invalid."))) return true;
  const reference = image.split("@")[0] ?? image;
  const lastSlash = reference.lastIndexOf("/");
  const colon = reference.lastIndexOf(":");
  const tag = colon > lastSlash ? reference.slice(colon + 1) : "";
  return tag === "non-existent" || tag === "nonexistent";
}

/** The waiting reason and message of a container whose image failed to pull (first the pull error, then the back-off). */
export function imagePullWaiting(image: string, backingOff: boolean): { reason: string; message: string } {
  if (backingOff) return { reason: "ImagePullBackOff", message: `Back-off pulling image "${image}"` };
  const reference = normalizedImageReference(image);
  return {
    reason: "ErrImagePull",
    message: `rpc error: code = NotFound desc = failed to pull and unpack image "${reference}": failed to resolve reference "${reference}": ${reference}: not found`,
  };
}
