// Go durations as kubectl reads them: one implementation, in @kubekit/client.
export { parseGoDuration } from "@kubekit/client";
