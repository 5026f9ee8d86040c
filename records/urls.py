"""``s3://BUCKET/PREFIX``: the URL of a run on object storage, checked (issue 32). Apart from
records/objects.py so that telling a URL from a local path (``is_url``, records.store.open_store)
does not import boto3."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SCHEME = "s3://"
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")  # S3's rule for a bucket's name
_IP = re.compile(r"^\d+\.\d+\.\d+\.\d+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class S3Url:
    """``s3://BUCKET/PREFIX``, checked: ``bucket`` and ``prefix`` (no slash at either end; may be empty)."""

    bucket: str
    prefix: str = ""

    def __str__(self) -> str:
        return f"{SCHEME}{self.bucket}/{self.prefix}" if self.prefix else f"{SCHEME}{self.bucket}"

    def key(self, name: str) -> str:
        """The object key of ``name`` under the prefix."""
        return f"{self.prefix}/{name}" if self.prefix else name

    def join(self, name: str) -> S3Url:
        """The URL of ``name`` under this one (a run under its ``--out``)."""
        return parse_url(f"{self}/{name}")


def is_url(text: str) -> bool:
    """Whether ``text`` means object storage (starts with ``s3:``): such a text is never a local path."""
    return str(text)[:3].lower() == "s3:"


def as_typed(text: str) -> str:
    """The URL as a person typed it, from what a command's Path option leaves of it (``s3:/B/P`` of
    ``s3://B/P``, ``s3:`` of ``s3://``); any other text as it is."""
    text = str(text)
    if text == "s3:":
        return SCHEME
    if text.startswith("s3:/") and not text.startswith(SCHEME):
        return SCHEME + text[len("s3:/"):]
    return text


def _shown(text: str) -> str:
    """``text`` as an error may show it: without anything before an ``@`` (credentials)."""
    if "@" in text:
        return SCHEME + "***@" + text.split("@", 1)[1]
    return repr(text)[1:-1]


def parse_url(text: str) -> S3Url:
    """``s3://BUCKET/PREFIX`` as an ``S3Url``; a ``ValueError`` of one line says what is wrong."""
    text = str(text)
    hint = "write s3://BUCKET/PREFIX; the endpoint and credentials come from the AWS environment"

    def bad(why: str) -> ValueError:
        return ValueError(f"bad S3 URL {_shown(text)!s}: {why} ({hint})")

    if not text.startswith(SCHEME):
        raise bad("it does not start with s3://" if is_url(text) else "not an s3:// URL")
    rest = text[len(SCHEME):]
    bucket, _, prefix = rest.partition("/")
    if "@" in bucket:
        raise bad("credentials do not belong in the URL")
    if _CONTROL.search(text):
        raise bad("it holds a control character")
    if "?" in text or "#" in text:
        raise bad("no query or fragment")
    if not bucket:
        raise bad("no bucket")
    if ":" in bucket:
        raise bad("a bucket's name, not a host and port")
    if not _BUCKET.match(bucket) or ".." in bucket or _IP.match(bucket):
        raise bad(f"{bucket!r} is not a bucket name (3 to 63 of a-z, 0-9, '.', '-')")
    prefix = prefix[:-1] if prefix.endswith("/") else prefix
    if prefix and any(part in ("", ".", "..") for part in prefix.split("/")):
        raise bad("an empty, '.' or '..' part in the prefix")
    return S3Url(bucket, prefix)


# in a local view of a run on object storage (records/s3store.py): the run's URL, and the ETags of
# the small files downloaded (both there in every view)
VIEW_URL, VIEW_SMALL = "url.txt", ".small.json"


def shown(folder) -> str:
    """How a folder a reader reads is named to a person: for the local view of a run on object
    storage (records/s3store.py, ``S3RunStore.view``), the run's ``s3://`` URL, never the private
    cache folder; else the folder as it is."""
    text = str(folder)
    try:
        url = (Path(folder) / VIEW_URL).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError, ValueError):
        return text
    return url if url.startswith(SCHEME) and (Path(folder) / VIEW_SMALL).exists() else text
