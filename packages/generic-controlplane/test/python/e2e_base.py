"""Shared setup of the python-client ports: the client is configured from the kubeconfig the test
harness wrote (E2E_KUBECONFIG), the way upstream's e2e_test/base.py reads ~/.kube/config."""
import os
import uuid

from kubernetes import config
from kubernetes.client import Configuration, api_client


def e2e_client():
    path = os.environ["E2E_KUBECONFIG"]
    configuration = Configuration()
    config.load_kube_config(config_file=path, client_configuration=configuration)
    return api_client.ApiClient(configuration=configuration)


def short_uuid():
    return str(uuid.uuid4())[-12:]
