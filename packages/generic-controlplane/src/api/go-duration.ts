// Go durations as kubectl reads them: one implementation, in @kubekit/apimachinery.
export { parseGoDuration } from "@kubekit/apimachinery";
