"""Ports of kubernetes-client/python e2e_test/test_utils.py cases that use the resources this
server serves: test_create_namespace_from_yaml, test_create_namespace_list_from_yaml and
test_create_from_multi_resource_yaml_with_conflict (there with a Service and a
ReplicationController; here with the same shape on a ConfigMap and a Secret)."""
import os
import sys
import tempfile
import unittest

from kubernetes import client, utils

from e2e_base import e2e_client

CORE_NAMESPACE = """apiVersion: v1
kind: Namespace
metadata:
  name: development
  labels:
    name: development
"""

NAMESPACE_LIST = """apiVersion: v1
kind: NamespaceList
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: mock-1
    labels:
      name: mock-1
- apiVersion: v1
  kind: Namespace
  metadata:
    name: mock-2
    labels:
      name: mock-2
"""

CONFLICT_FIRST = """apiVersion: v1
kind: ConfigMap
metadata:
  name: mock-2
  labels:
    app: mock-2
data:
  key: first
"""

CONFLICT_MULTI = """apiVersion: v1
kind: ConfigMap
metadata:
  name: mock-2
  labels:
    app: mock-2
data:
  key: second
---
apiVersion: v1
kind: Secret
metadata:
  name: mock-2
  labels:
    app: mock-2
stringData:
  key: value
"""


class TestUtils(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_create_namespace_from_yaml(self):
        k8s_client = e2e_client()
        utils.create_from_yaml(k8s_client, self.write("core-namespace.yaml", CORE_NAMESPACE))
        core_api = client.CoreV1Api(k8s_client)
        nmsp = core_api.read_namespace(name="development")
        self.assertIsNotNone(nmsp)
        self.assertEqual("development", nmsp.metadata.name)
        core_api.delete_namespace(name="development", body={})

    def test_create_namespace_list_from_yaml(self):
        k8s_client = e2e_client()
        utils.create_from_yaml(k8s_client, self.write("namespace-list.yaml", NAMESPACE_LIST))
        core_api = client.CoreV1Api(k8s_client)
        self.assertIsNotNone(core_api.read_namespace(name="mock-1"))
        self.assertIsNotNone(core_api.read_namespace(name="mock-2"))
        core_api.delete_namespace(name="mock-1", body={})
        core_api.delete_namespace(name="mock-2", body={})

    def test_create_from_multi_resource_yaml_with_conflict(self):
        k8s_client = e2e_client()
        utils.create_from_yaml(k8s_client, self.write("yaml-conflict-first.yaml", CONFLICT_FIRST))
        core_api = client.CoreV1Api(k8s_client)
        self.assertIsNotNone(core_api.read_namespaced_config_map(name="mock-2", namespace="default"))
        with self.assertRaises(utils.FailToCreateError) as cm:
            utils.create_from_yaml(k8s_client, self.write("yaml-conflict-multi.yaml", CONFLICT_MULTI))
        exp_error = (
            "Error from server (Conflict): "
            '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
            '"message":"configmaps \\"mock-2\\" already exists",'
            '"reason":"AlreadyExists","details":{"name":"mock-2",'
            '"kind":"configmaps"},"code":409}\n'
        )
        self.assertEqual(exp_error, str(cm.exception))
        # The second document was still created, and the first kept its data.
        secret = core_api.read_namespaced_secret(name="mock-2", namespace="default")
        self.assertIsNotNone(secret)
        self.assertEqual("first", core_api.read_namespaced_config_map(name="mock-2", namespace="default").data["key"])
        core_api.delete_namespaced_secret(name="mock-2", namespace="default", body={})
        core_api.delete_namespaced_config_map(name="mock-2", namespace="default", body={})


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 3 else 1)
