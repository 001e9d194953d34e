// The wire types belong to @kubekit/client, which the server and every client share; this module
// keeps the server's imports in one place.
export type * from "@kubekit/client";
