"""The python client over HTTPS with the generated admin kubeconfig: the CA verifies the server, the
client certificate authenticates as kubernetes-admin (system:masters)."""
import unittest

from kubernetes.client import api, models

from e2e_base import e2e_client, short_uuid


class TestTlsAdmin(unittest.TestCase):
    def test_admin_over_tls(self):
        client = e2e_client()
        self.assertTrue(client.configuration.host.startswith("https://"))
        core = api.core_v1_api.CoreV1Api(client)
        names = [ns.metadata.name for ns in core.list_namespace().items]
        self.assertIn("default", names)
        name = "tls-" + short_uuid()
        core.create_namespaced_config_map("default", models.V1ConfigMap(metadata=models.V1ObjectMeta(name=name), data={"k": "v"}))
        self.assertEqual(core.read_namespaced_config_map(name, "default").data, {"k": "v"})
        # Client 22.6 predates SelfSubjectReview's typed API: post it through the same authenticated ApiClient.
        review, status, _ = client.call_api(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews", "POST",
            body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
            header_params={"Content-Type": "application/json", "Accept": "application/json"},
            auth_settings=["BearerToken"], response_type="object", _return_http_data_only=False)
        self.assertEqual(status, 201)
        self.assertEqual(review["status"]["userInfo"], {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]})


if __name__ == "__main__":
    unittest.main()
