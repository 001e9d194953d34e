// Exec credential plugins are @kubekit/client's; the controllers import them through here.
export { EXEC_API_VERSIONS, ExecCredentialProvider, type ExecApiVersion, type ExecConfig, type ExecCredential } from "@kubekit/client";
