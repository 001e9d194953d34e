"""CRUD on a custom resource through ApiextensionsV1Api and CustomObjectsApi (the calls
kubernetes-client/python's examples/custom_object.py and dynamic client make)."""
import sys
import unittest

from kubernetes import watch
from kubernetes.client import ApiextensionsV1Api, CustomObjectsApi
from kubernetes.client.rest import ApiException

from e2e_base import e2e_client, short_uuid

GROUP = "stable.example.com"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "crontabs." + GROUP},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"cronSpec": {"type": "string"}, "image": {"type": "string"}, "replicas": {"type": "integer"}},
                            },
                            "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                        },
                    }
                },
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
            }
        ],
    },
}


class TestCustomObjects(unittest.TestCase):
    def wait_established(self, extensions, name, timeout_seconds=10):
        stream = watch.Watch().stream(
            extensions.list_custom_resource_definition, field_selector="metadata.name=" + name, timeout_seconds=timeout_seconds
        )
        for event in stream:
            conditions = event["object"].status.conditions or []
            if any(c.type == "Established" and c.status == "True" for c in conditions):
                return
        self.fail("%s was not Established within %ss" % (name, timeout_seconds))

    def test_custom_object_crud(self):
        client = e2e_client()
        extensions = ApiextensionsV1Api(client)
        objects = CustomObjectsApi(client)

        extensions.create_custom_resource_definition(body=CRD)
        self.wait_established(extensions, CRD["metadata"]["name"])

        name = "crontab-" + short_uuid()
        body = {"apiVersion": GROUP + "/v1", "kind": "CronTab", "metadata": {"name": name}, "spec": {"cronSpec": "* * * * */5", "image": "my-image", "replicas": 1}}
        created = objects.create_namespaced_custom_object(GROUP, "v1", "default", "crontabs", body)
        self.assertEqual(created["metadata"]["name"], name)
        self.assertEqual(created["metadata"]["generation"], 1)

        got = objects.get_namespaced_custom_object(GROUP, "v1", "default", "crontabs", name)
        self.assertEqual(got["spec"]["image"], "my-image")
        listed = objects.list_namespaced_custom_object(GROUP, "v1", "default", "crontabs")
        self.assertEqual([item["metadata"]["name"] for item in listed["items"]], [name])
        self.assertEqual(listed["kind"], "CronTabList")

        # CustomObjectsApi patches as merge patches.
        patched = objects.patch_namespaced_custom_object(GROUP, "v1", "default", "crontabs", name, {"spec": {"image": "other-image"}})
        self.assertEqual(patched["spec"]["image"], "other-image")
        self.assertEqual(patched["metadata"]["generation"], 2)

        status = objects.patch_namespaced_custom_object_status(GROUP, "v1", "default", "crontabs", name, {"status": {"replicas": 1}})
        self.assertEqual(status["status"], {"replicas": 1})

        scale = objects.get_namespaced_custom_object_scale(GROUP, "v1", "default", "crontabs", name)
        self.assertEqual(scale["kind"], "Scale")
        self.assertEqual(scale["spec"]["replicas"], 1)
        scaled = objects.patch_namespaced_custom_object_scale(GROUP, "v1", "default", "crontabs", name, {"spec": {"replicas": 3}})
        self.assertEqual(scaled["spec"]["replicas"], 3)

        replaced = objects.get_namespaced_custom_object(GROUP, "v1", "default", "crontabs", name)
        replaced["spec"]["cronSpec"] = "0 * * * *"
        replaced = objects.replace_namespaced_custom_object(GROUP, "v1", "default", "crontabs", name, replaced)
        self.assertEqual(replaced["spec"], {"cronSpec": "0 * * * *", "image": "other-image", "replicas": 3})

        objects.delete_namespaced_custom_object(GROUP, "v1", "default", "crontabs", name)
        with self.assertRaises(ApiException) as missing:
            objects.get_namespaced_custom_object(GROUP, "v1", "default", "crontabs", name)
        self.assertEqual(missing.exception.status, 404)

        extensions.delete_custom_resource_definition(CRD["metadata"]["name"])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() and result.testsRun == 1 else 1)
