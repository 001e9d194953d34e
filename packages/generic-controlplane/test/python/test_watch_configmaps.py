"""Port of kubernetes-client/python e2e_test/test_watch.py::TestClient::test_watch_configmaps."""
import sys
import unittest

from kubernetes import watch
from kubernetes.client.api import core_v1_api

from e2e_base import e2e_client, short_uuid


def config_map_with_value(name, value):
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"key": value, "config": "dummy"},
    }


class TestClient(unittest.TestCase):
    def test_watch_configmaps(self):
        api = core_v1_api.CoreV1Api(e2e_client())

        name_a = "configmap-a-" + short_uuid()
        api.create_namespaced_config_map(body=config_map_with_value(name_a, "a"), namespace="default")

        # the resource version of a LIST is where the watch starts
        resp = api.list_namespaced_config_map("default")
        rv = resp.metadata.resource_version

        name_b = "configmap-b-" + short_uuid()
        configmap_b = config_map_with_value(name_b, "b")
        api.create_namespaced_config_map(body=configmap_b, namespace="default")

        configmap_b["data"]["config"] = "{}"
        api.patch_namespaced_config_map(name=name_b, namespace="default", body=configmap_b)

        api.delete_collection_namespaced_config_map(namespace="default")

        w = watch.Watch()
        # every event after the LIST is replayed: B added, B modified, then both deleted
        expect = ["ADDED", "MODIFIED", "DELETED", "DELETED"]
        i = 0
        for event in w.stream(
            api.list_namespaced_config_map, namespace="default", resource_version=rv, timeout_seconds=5
        ):
            self.assertLess(i, len(expect), "more events than expected: %s" % event["type"])
            self.assertEqual(event["type"], expect[i])
            # the order of the two deletions is not guaranteed
            if i < 2:
                self.assertEqual(event["object"].metadata.name, name_b)
            i = i + 1

        self.assertEqual(i, 4)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 1 else 1)
