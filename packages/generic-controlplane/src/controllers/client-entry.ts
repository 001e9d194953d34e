// The `/client` entry: what a program needs to talk to an API server and nothing of the server or
// the controllers — exactly @kubekit/client, which a program can also depend on alone.
export * from "@kubekit/client";
