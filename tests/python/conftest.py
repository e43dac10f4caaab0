# SPDX-License-Identifier: Apache-2.0
import os
import subprocess

import pytest

from acceld_fixture import Daemon, shared_models_dir


@pytest.fixture(scope="session")
def daemon():
    d = Daemon()
    yield d
    d.stop()
    assert d.proc.returncode == 0, f"acceld exited with {d.proc.returncode}:\n{d.log()}"


@pytest.fixture(scope="session")
def models():
    d = shared_models_dir()
    if d is None:
        pytest.skip("../shared/models (the golden models) is missing: set ACCELD_SHARED_DIR")
    return d


@pytest.fixture
def model(models):
    """Path of a shared model by file name."""
    def path(name):
        p = os.path.join(models, name)
        if not os.path.isfile(p):
            pytest.skip(f"{p} is missing")
        return p
    return path


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """Path of one of tests/builder's stock models (tfb-write)."""
    tool = os.environ.get("TFB_WRITE_BIN")
    if not tool or not os.access(tool, os.X_OK):
        pytest.skip("TFB_WRITE_BIN (tests/builder/tfb-write) is not built")
    d = tmp_path_factory.mktemp("models")

    def path(name):
        p = d / f"{name}.tflite"
        if not p.exists():
            subprocess.run([tool, name, str(p)], check=True)
        return str(p)
    return path
