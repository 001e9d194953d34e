// The client is @kubekit/client; the controllers import it through here.
export * from "@kubekit/client";
