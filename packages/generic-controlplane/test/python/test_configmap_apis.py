"""Port of kubernetes-client/python e2e_test/test_client.py::TestClient::test_configmap_apis."""
import sys
import unittest

from kubernetes.client.api import core_v1_api

from e2e_base import e2e_client, short_uuid


class TestClient(unittest.TestCase):
    def test_configmap_apis(self):
        api = core_v1_api.CoreV1Api(e2e_client())

        name = "test-configmap-" + short_uuid()
        test_configmap = {
            "kind": "ConfigMap",
            "apiVersion": "v1",
            "metadata": {
                "name": name,
                "labels": {"e2e-tests": "true"},
            },
            "data": {
                "config.json": '{"command":"/usr/bin/mysqld_safe"}',
                "frontend.cnf": "[mysqld]\nbind-address = 10.0.0.3\nport = 3306\n",
            },
        }

        resp = api.create_namespaced_config_map(body=test_configmap, namespace="default")
        self.assertEqual(name, resp.metadata.name)

        resp = api.read_namespaced_config_map(name=name, namespace="default")
        self.assertEqual(name, resp.metadata.name)

        # A list body is sent as application/json-patch+json: /data is replaced wholesale.
        json_patch_name = "json_patch_name"
        json_patch_body = [{"op": "replace", "path": "/data", "value": {"new_value": json_patch_name}}]
        resp = api.patch_namespaced_config_map(name=name, namespace="default", body=json_patch_body)
        self.assertEqual(json_patch_name, resp.data["new_value"])
        self.assertEqual(None, resp.data.get("config.json"))
        self.assertEqual(None, resp.data.get("frontend.cnf"))

        # A dict body is sent as application/strategic-merge-patch+json.
        merge_patch_name = "merge_patch_name"
        merge_patch_body = {"data": {"new_value": merge_patch_name}}
        resp = api.patch_namespaced_config_map(name=name, namespace="default", body=merge_patch_body)
        self.assertEqual(merge_patch_name, resp.data["new_value"])
        self.assertEqual(None, resp.data.get("config.json"))
        self.assertEqual(None, resp.data.get("frontend.cnf"))

        api.delete_namespaced_config_map(name=name, body={}, namespace="default")

        resp = api.list_namespaced_config_map("default", label_selector="e2e-tests=true")
        self.assertEqual([], resp.items)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 1 else 1)
