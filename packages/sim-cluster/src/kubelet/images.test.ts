import { describe, expect, it } from "vitest";
import { imagePullWaiting, isUnpullableImage, normalizedImageReference } from "./images.js";

describe("image references", () => {
  it("normalizes as containerd names what it pulls", () => {
    expect(normalizedImageReference("foo")).toBe("docker.io/library/foo:latest");
    expect(normalizedImageReference("foo:non-existent")).toBe("docker.io/library/foo:non-existent");
    expect(normalizedImageReference("team/app:1")).toBe("docker.io/team/app:1");
    expect(normalizedImageReference("localhost:5000/app")).toBe("localhost:5000/app:latest");
    expect(normalizedImageReference("registry.k8s.io/pause@sha256:abc")).toBe("registry.k8s.io/pause@sha256:abc");
  });

  it("fails images of the reserved .invalid domain, upstream's invalid registry and non-existent tags; others pull", () => {
    for (const image of [
      "foo.invalid/none:latest",
      "FOO.INVALID:5000/none",
      "invalid.registry.k8s.io/invalid/alpine:3.1",
      "foo:non-existent",
      "gcr.io/google_samples/gb-redisslave:nonexistent",
    ]) {
      expect(isUnpullableImage(image), image).toBe(true);
    }
    for (const image of [
      "x",
      "nginx",
      "agent:2",
      "registry.k8s.io/e2e-test-images/agnhost:2.53",
      "invalid/app:1",
      "non-existent:1",
      "localhost:5000/app",
    ]) {
      expect(isUnpullableImage(image), image).toBe(false);
    }
  });

  it("words the waiting state as the kubelet does", () => {
    expect(imagePullWaiting("foo:non-existent", false)).toEqual({
      reason: "ErrImagePull",
      message:
        'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/foo:non-existent": failed to resolve reference "docker.io/library/foo:non-existent": docker.io/library/foo:non-existent: not found',
    });
    expect(imagePullWaiting("foo:non-existent", true)).toEqual({
      reason: "ImagePullBackOff",
      message: 'Back-off pulling image "foo:non-existent"',
    });
  });
});
