"""S3 primitives for a run on object storage (issue 32): the layer the run store will use.

Object stores have no rename, so a run on S3 will commit with conditional PUTs instead (SPEC 10,
docs/league.md): create-only (``If-None-Match: *``) for what must be written once, compare-and-swap
(``If-Match: <etag>``) for what changes under one writer at a time. This module is those
primitives and no more; ``records.store.RunStore`` will build the run's files, parts and lock on
them. boto3 is the only client (pyarrow's S3 file system has no conditional PUT).

    objects = Objects("s3://bucket/runs")      # the objects under one prefix
    etag = objects.put_new("quick/.lock", b"..")   # None: it was already there (412)
    etag = objects.put_if("quick/.lock", b"..", etag)  # None: it changed since (412)
    data, etag = objects.get("quick/.lock")     # FileNotFoundError when it is not there

The endpoint and credentials come only from the usual AWS environment and configuration
(``AWS_ENDPOINT_URL`` or ``AWS_ENDPOINT_URL_S3``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_REGION``, ``AWS_PROFILE``, ``~/.aws/config``), never from our configs or URLs, and nothing
this module returns or raises names them: an ``Objects`` shows itself as its ``s3://`` URL, and an
error names the object's URL and the server's error code.
"""
from __future__ import annotations

import base64
import hashlib
import os
import random
import threading
import time

import boto3
import botocore.exceptions
from botocore.config import Config

from .urls import SCHEME, S3Url, is_url, parse_url  # noqa: F401 (is_url: this module's users' too)


# The client's settings. Checksums: boto3 1.36 made request checksums and response validation
# default to "when_supported" (a CRC32 header, and for streamed bodies an aws-chunked trailer, on
# every PutObject; boto/boto3#4392). Servers that do not implement those headers refuse the upload
# (boto/botocore#3352: AuthorizationHeaderMalformed from Qumulo; 501 from Cloudflare R2; uploads to
# older MinIO broke, langgenius/dify#35117) or, worse, store the chunk framing and the trailer
# inside the object (boto/boto3#4435). SeaweedFS 4.48, the tests' server, takes either setting (its
# test checks that no such header is sent), so "when_required" is pinned for the servers the tests
# cannot show: checksums only where an operation requires one. Each PUT sends its own Content-MD5
# instead (``_md5``), the integrity check every S3 server has implemented from the start: a body
# that arrives changed is refused (400 BadDigest; tested).
# Retries: none inside botocore (max_attempts 1); ``Objects._call`` retries itself, because after
# a conditional PUT whose answer was lost it must find out whether its own write landed.
CONFIG = Config(request_checksum_calculation="when_required", response_checksum_validation="when_required",
                retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=10, read_timeout=60)
ATTEMPTS = 5  # tries of one request through transient failures (connection, 5xx, throttling)
# error codes worth another try: throttling, a server's passing trouble, and S3's answer to two
# conditional writes of one key at once (409: the other one's outcome decides, so try again)
_TRANSIENT_CODES = {"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "InternalError",
                    "ServiceUnavailable", "ConditionalRequestConflict", "OperationAborted"}


class ObjectStoreError(OSError):
    """A request to the object store failed (the message names the object's URL, never the
    endpoint or the credentials)."""


def client():
    """A new S3 client (``CONFIG``) whose endpoint, region and credentials are boto3's own
    choice from the AWS environment and configuration files; thread-safe once made."""
    return boto3.session.Session().client("s3", config=CONFIG)


_SHARED: dict[tuple[int, str], object] = {}
_SHARED_LOCK = threading.Lock()


def shared_client():
    """The client every ``Objects`` of this process uses (``client()`` made once, not once a store:
    ``azul serve`` opens runs' stores every second). One per process (a forked child makes its
    own) and per source of endpoint and credentials: the ``AWS_*`` environment and ``HOME`` (where
    the AWS files are), held only as a hash, so the key holds no credential; a change of them
    (a test's server, another profile) gets a client of its own."""
    source = sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_") or k == "HOME")
    key = (os.getpid(), hashlib.sha256(repr(source).encode()).hexdigest())
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = client()
        return _SHARED[key]


def _md5(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode("ascii")


def _code(error: botocore.exceptions.ClientError) -> tuple[str, int]:
    return (str(error.response.get("Error", {}).get("Code", "")),
            int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)))


class Objects:
    """The objects under one ``s3://BUCKET/PREFIX``, by name relative to the prefix.

    ``put_new`` and ``put_if`` are the two conditional writes; ``get`` returns the bytes with the
    ETag to hand ``put_if``; ``list`` and ``delete`` as their names say. Each request is tried
    again through transient failures; a conditional write whose answer was lost, tried again and
    refused (412), reads the object back: when it holds exactly the bytes written, the write was
    its own and succeeded.
    """

    def __init__(self, url: str | S3Url, s3=None, attempts: int = ATTEMPTS):
        self.url = url if isinstance(url, S3Url) else parse_url(url)
        self._s3 = s3 if s3 is not None else shared_client()
        self.attempts = attempts

    def __repr__(self) -> str:
        return f"Objects({str(self.url)!r})"

    def __str__(self) -> str:
        return str(self.url)

    def where(self, name: str) -> str:
        """The ``s3://`` URL of the object ``name``."""
        return f"{SCHEME}{self.url.bucket}/{self._key(name)}"

    def _key(self, name: str) -> str:
        if not name or name.startswith("/"):
            raise ValueError(f"{self.url}: {name!r} is not an object's name under the prefix")
        return self.url.key(name)

    def _call(self, what: str, name: str, request, conditional: bool = False):
        """``request()``, tried again through transient failures. Returns ``(response, None,
        landed)``, or ``(None, 412 or 404, landed)`` when the server refused the condition or has
        no such object; ``landed``: an earlier try of a conditional write may have been carried
        out without its answer reaching us."""
        place, landed = self.where(name) if name else str(self.url), False
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(min(2.0, 0.1 * 2 ** attempt) * (0.5 + random.random()))
            try:
                return request(), None, landed
            except (botocore.exceptions.EndpointConnectionError, botocore.exceptions.ConnectTimeoutError) as e:
                error = f"could not reach the S3 endpoint ({type(e).__name__})"  # nothing was sent
            except (botocore.exceptions.ConnectionError, botocore.exceptions.HTTPClientError) as e:
                error = f"the connection failed ({type(e).__name__})"
                landed = landed or conditional
            except botocore.exceptions.NoCredentialsError:
                raise ObjectStoreError(f"{place}: {what}: no AWS credentials found "
                                       "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile)") from None
            except botocore.exceptions.ClientError as e:
                code, status = _code(e)
                if code == "NoSuchBucket":  # the bucket of the URL as typed, not of one object
                    raise ObjectStoreError(f"{self.url}: {what}: no bucket {self.url.bucket!r}") from None
                if status == 412 or code == "PreconditionFailed":
                    return None, 412, landed
                if status == 404 or code == "NoSuchKey":
                    return None, 404, landed
                if code not in _TRANSIENT_CODES and status < 500:
                    message = e.response.get("Error", {}).get("Message", "")
                    raise ObjectStoreError(f"{place}: {what}: {code or status}"
                                           + (f": {message}" if message else "")) from None
                error = code or str(status)
                landed = landed or (conditional and status >= 500)
        tries = "1 try" if self.attempts == 1 else f"{self.attempts} tries"
        raise ObjectStoreError(f"{place}: {what}: {error} ({tries})")

    def _own(self, name: str, data: bytes, landed: bool) -> str | None:
        """After a conditional write refused on a retry (``landed``): the object's ETag when it
        holds exactly ``data``, so the refused try found our own earlier write; else None."""
        if not landed:
            return None
        try:
            there, etag = self.get(name)
        except FileNotFoundError:
            return None
        return etag if there == data else None

    def put(self, name: str, data: bytes) -> str:
        """Write the object whole, whatever was there; returns its ETag."""
        key = self._key(name)
        response, status, _ = self._call("put", name, lambda: self._s3.put_object(
            Bucket=self.url.bucket, Key=key, Body=data, ContentMD5=_md5(data)))
        if response is None:
            raise ObjectStoreError(f"{self.where(name)}: put: refused ({status})")
        return response["ETag"]

    def put_new(self, name: str, data: bytes) -> str | None:
        """Create the object (``If-None-Match: *``); returns its ETag, or None when an object of
        that name is already there (the server's 412): nothing was written then."""
        key = self._key(name)
        response, _, landed = self._call("create", name, lambda: self._s3.put_object(
            Bucket=self.url.bucket, Key=key, Body=data, ContentMD5=_md5(data), IfNoneMatch="*"), conditional=True)
        return response["ETag"] if response is not None else self._own(name, data, landed)

    def put_if(self, name: str, data: bytes, etag: str) -> str | None:
        """Replace the object if it is still the one ``etag`` names (``If-Match``); returns the new
        ETag, or None when it changed or is gone since (412, or 404): nothing was written then."""
        key = self._key(name)
        response, _, landed = self._call("replace", name, lambda: self._s3.put_object(
            Bucket=self.url.bucket, Key=key, Body=data, ContentMD5=_md5(data), IfMatch=etag), conditional=True)
        return response["ETag"] if response is not None else self._own(name, data, landed)

    def get(self, name: str) -> tuple[bytes, str]:
        """The object's bytes and ETag; ``FileNotFoundError`` when it is not there."""
        key = self._key(name)

        def read():
            response = self._s3.get_object(Bucket=self.url.bucket, Key=key)
            return response["Body"].read(), response["ETag"]

        result, _, _ = self._call("get", name, read)
        if result is None:
            raise FileNotFoundError(f"{self.where(name)}: no such object")
        return result

    def etag(self, name: str) -> str | None:
        """The object's ETag, or None when it is not there (one HEAD request)."""
        key = self._key(name)
        response, _, _ = self._call("head", name, lambda: self._s3.head_object(Bucket=self.url.bucket, Key=key))
        return response["ETag"] if response is not None else None

    def copy(self, source: str, name: str) -> str:
        """Copy the object ``source`` to ``name`` on the server (no bytes through this process);
        returns the copy's ETag. ``FileNotFoundError`` when ``source`` is not there."""
        key, source_key = self._key(name), self._key(source)
        response, status, _ = self._call("copy", name, lambda: self._s3.copy_object(
            Bucket=self.url.bucket, Key=key, CopySource={"Bucket": self.url.bucket, "Key": source_key}))
        if response is None:
            raise FileNotFoundError(f"{self.where(source)}: no such object to copy")
        return response["CopyObjectResult"]["ETag"]

    def entries(self, prefix: str = "", delimiter: bool = False, most: int | None = None) -> dict[str, tuple[str, int]]:
        """``{name: (etag, size)}`` of the objects whose names start with ``prefix`` (relative to
        this URL's prefix); ``delimiter``: only those with no ``/`` after ``prefix``; ``most``: at
        most that many (the first ones)."""
        return self._listed(prefix, delimiter, most)[0]

    def level(self, prefix: str = "") -> tuple[dict[str, tuple[str, int]], list[str]]:
        """What lies directly under ``prefix`` ("" or ending in ``/``), named below it: the
        ``entries`` of its objects and the names of its folders (those the server lists as common
        prefixes), sorted; from one LIST with ``Delimiter='/'`` a thousand entries (``azul serve``
        walks a prefix for runs so, a level at a time)."""
        files, folders = self._listed(prefix, True)
        cut = len(prefix)
        return {name[cut:]: entry for name, entry in files.items()}, sorted(f[cut:] for f in folders)

    def _listed(self, prefix: str, delimiter: bool, most: int | None = None):
        """The objects (``entries``) and, with ``delimiter``, the folders under ``prefix``, named
        relative to this URL's prefix."""
        start = self.url.key(prefix) if prefix else (f"{self.url.prefix}/" if self.url.prefix else "")
        cut = len(self.url.prefix) + 1 if self.url.prefix else 0
        options = {"Delimiter": "/"} if delimiter else {}
        if most is not None:
            options["PaginationConfig"] = {"MaxItems": most, "PageSize": most}

        def listing():
            pages = self._s3.get_paginator("list_objects_v2").paginate(Bucket=self.url.bucket, Prefix=start,
                                                                       **options)
            files, folders = {}, []
            for page in pages:
                files.update({item["Key"][cut:]: (item["ETag"], int(item["Size"]))
                              for item in page.get("Contents", [])})
                folders += [item["Prefix"][cut:].rstrip("/") for item in page.get("CommonPrefixes", [])]
            return files, folders

        found, _, _ = self._call("list", prefix, listing)
        return found if found is not None else ({}, [])

    def list(self, prefix: str = "") -> list[str]:
        """The names (relative to this URL's prefix) of the objects whose names start with
        ``prefix``, sorted. A listing is only what the server holds now: what a reader may read
        is what the commits name (issue 32), never a listing."""
        start = self.url.key(prefix) if prefix else (f"{self.url.prefix}/" if self.url.prefix else "")
        cut = len(self.url.prefix) + 1 if self.url.prefix else 0

        def listing():
            pages = self._s3.get_paginator("list_objects_v2").paginate(Bucket=self.url.bucket, Prefix=start)
            return [item["Key"][cut:] for page in pages for item in page.get("Contents", [])]

        names, _, _ = self._call("list", prefix, listing)
        return sorted(names or [])

    def delete(self, name: str, etag: str | None = None) -> bool:
        """Remove the object (one not there is no error). With ``etag``, only if it is still that
        object (``If-Match``): False when it changed or is gone (412, 404), and nothing removed."""
        key = self._key(name)
        condition = {"IfMatch": etag} if etag is not None else {}
        response, status, landed = self._call("delete", name, lambda: self._s3.delete_object(
            Bucket=self.url.bucket, Key=key, **condition), conditional=etag is not None)
        if response is not None or etag is None:
            return True
        # refused after a try whose answer was lost: when the object is gone, that try removed it
        # (a conditional delete of a missing key is a 412 on some servers, SeaweedFS; 404 on others)
        return landed and self.etag(name) is None
