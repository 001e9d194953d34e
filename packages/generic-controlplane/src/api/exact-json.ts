// Exact int64 JSON lives in @kubekit/client (the client reads responses with it); the server's
// modules import it through here.
export * from "@kubekit/client/json";
